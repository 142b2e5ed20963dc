-- Removes pod-bouncer.io/paused: the run goes on at once (the worker watches the directive).
if obj.metadata.annotations ~= nil then
  obj.metadata.annotations["pod-bouncer.io/paused"] = nil
end
return obj
