-- Sets pod-bouncer.io/paused: "true": no further pod is bounced; waits and gates go on.
if obj.metadata.annotations == nil then
  obj.metadata.annotations = {}
end
obj.metadata.annotations["pod-bouncer.io/paused"] = "true"
return obj
