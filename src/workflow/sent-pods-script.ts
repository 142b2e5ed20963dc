/**
 * The one script that records a chunk as sent (`sent-pods.ts`), run under the bounce lease just
 * before the chunk goes out. Atomic, so that of the run's selectors racing for a pod exactly one
 * sends it:
 *
 * 1. With several selectors at once (a selector mark given), each pod already recorded as sent by
 *    another selector of the run is dropped from the chunk (answered: that selector sends it); the
 *    others are recorded as this selector's. Its own record does not drop a pod, so a selector
 *    sends again what its earlier attempt left undone (a refused eviction, a crash in flight).
 * 2. The controlled pods left are appended to the selector's field, dropping entries older than
 *    the age limit. An entry whose pod the job inherited as another run's replacement is marked
 *    (`r`): it holds the slot of a pod sent before it, and a later run must not count that slot
 *    twice.
 * 3. Beside them, the run's owners: each pod's controller owner keeps the earliest second one of
 *    its pods was sent a bounce in by this run.
 *
 * KEYS: the hash of sent pods, the run's owners, the run's sent pods.
 * ARGV: the field, the oldest `since` kept, the key's TTL in ms, the chunk's pods (JSON, `u` its
 * uid, `o` its owner's key when it has one), the job's field (what it inherited when it chose),
 * the second sent in, the run keys' TTL in ms, the selector's mark ('' with one selector at a
 * time: nothing is checked nor recorded per run).
 * Answers the uids dropped.
 */
export const RECORD_SENT = `
local mine = ARGV[8]
local taken = {}
local controlled = {}
for _, pod in ipairs(cjson.decode(ARGV[4])) do
  local holder = false
  if mine ~= '' then holder = redis.call('HGET', KEYS[3], pod.u) end
  if holder and holder ~= mine then
    table.insert(taken, pod.u)
  else
    if mine ~= '' then redis.call('HSET', KEYS[3], pod.u, mine) end
    if type(pod.o) == 'string' then table.insert(controlled, pod) end
  end
end
if mine ~= '' then redis.call('PEXPIRE', KEYS[3], ARGV[7]) end
if #controlled == 0 then return taken end
local kept = {}
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if raw then
  for _, entry in ipairs(cjson.decode(raw)) do
    if tonumber(entry.s) >= tonumber(ARGV[2]) then table.insert(kept, entry) end
  end
end
local theirs = {}
local inherited = redis.call('HGET', KEYS[1], ARGV[5])
if inherited then
  local decoded = cjson.decode(inherited)
  if type(decoded.theirs) == 'table' then
    for _, uid in ipairs(decoded.theirs) do theirs[uid] = true end
  end
end
for _, pod in ipairs(controlled) do
  local entry = { u = pod.u, s = tonumber(ARGV[6]) }
  if theirs[pod.u] then entry.r = 1 end
  table.insert(kept, entry)
  local first = redis.call('HGET', KEYS[2], pod.o)
  if not first or tonumber(first) > tonumber(ARGV[6]) then redis.call('HSET', KEYS[2], pod.o, ARGV[6]) end
end
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(kept))
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[7])
return taken
`;
