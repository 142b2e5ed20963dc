-- Argo CD health of an internal.gloo.solo.io/PodBounceDirective (Lua 5.1, as Argo CD runs it).
-- Healthy: Ready is True for the current generation. Degraded: Stalled is True (a run FAILED or
-- was aborted). Suspended: paused (pod-bouncer.io/paused: "true"). Progressing: anything else,
-- a status that describes an older generation included.
local hs = { status = "Progressing", message = "Waiting for pod-bouncer to describe this generation" }

local function condition(status, type)
  if status == nil or status.conditions == nil then
    return nil
  end
  for _, c in ipairs(status.conditions) do
    if c.type == type then
      return c
    end
  end
  return nil
end

-- A condition speaks for the current generation when it, or the status, observed it.
local function current(c, status, generation)
  local observed = c.observedGeneration or status.observedGeneration
  return generation == nil or observed == generation
end

local status = obj.status
local generation = obj.metadata.generation
local paused = obj.metadata.annotations ~= nil and obj.metadata.annotations["pod-bouncer.io/paused"] == "true"

if status ~= nil and (generation == nil or status.observedGeneration == generation) then
  local ready = condition(status, "Ready")
  local stalled = condition(status, "Stalled")
  if ready ~= nil and ready.status == "True" and current(ready, status, generation) then
    hs.status = "Healthy"
    hs.message = ready.message or "Finished"
    return hs
  end
  if stalled ~= nil and stalled.status == "True" and current(stalled, status, generation) then
    hs.status = "Degraded"
    hs.message = stalled.message or status.error or "Stalled"
    return hs
  end
  if ready ~= nil and ready.message ~= nil then
    hs.message = ready.message
  end
end

if paused then
  hs.status = "Suspended"
  hs.message = "Paused (pod-bouncer.io/paused: \"true\"): no pod is bounced until it is removed"
end
return hs
