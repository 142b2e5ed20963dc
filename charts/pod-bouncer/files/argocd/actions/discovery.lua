-- The actions Argo CD offers on a PodBounceDirective: pause while running, resume while paused.
local actions = {}
local paused = obj.metadata.annotations ~= nil and obj.metadata.annotations["pod-bouncer.io/paused"] == "true"
actions["pause"] = { ["disabled"] = paused }
actions["resume"] = { ["disabled"] = not paused }
return actions
