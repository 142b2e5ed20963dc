/**
 * The Lua of the namespace's record of pods sent, for any directive (`podClaimsKey`), that the
 * sent-pods scripts (`sent-pods-script.ts`) are assembled from. A claim reads
 * `<directive uid> <second>`, with `/<owner tag>` after the uid for a controlled pod (8 hex digits
 * of the SHA-1 of `<kind>/<name>`: what tells another directive's selectors that it is one of
 * their pods, `READ_SENT`, in a value short enough for Redis's compact hash encoding) and `/r`
 * after that for a pod the job inherited as a replacement (its slot is counted once). A run's
 * originals are kept there too, `p:<uid>` → `<directive uid> <second>` (no claim: no `/`).
 */

/**
 * Lua both scripts share: an owner's tag, and the claims another directive than `directive` made
 * at or after `oldest` on pods of `owners` (a set of tags), each handed to `each`.
 */
export const FOREIGN_CLAIMS = `
local function tagOf(owner) return string.sub(redis.sha1hex(owner), 1, 8) end
local function foreignClaims(key, directive, owners, oldest, each)
  local all = redis.call('HGETALL', key)
  for i = 1, #all, 2 do
    local by, owner, mark, at = string.match(all[i + 1], '^([^/ ]+)/(%x+)(%S*) (%d+)$')
    if by and by ~= directive and owners[owner] and tonumber(at) >= tonumber(oldest) then
      each(all[i], at, mark)
    end
  end
end
`;

/**
 * `RECORD_SENT`'s claim of a pod (after `theirs`, the job's inherited replacements): `claimedBy`
 * answers the second another directive claimed it in within the age limit, else claims it for this
 * one (its own claim kept as it is); `fenceCrossed` tells whether other directives claimed more on
 * the fence's owners than the batch gate counted. `claims` counts the claims written.
 */
export const CLAIM_POD = `local function claimOf(pod)
  local raw = redis.call('HGET', KEYS[4], pod.u)
  if not raw then return nil end
  local by, at = string.match(raw, '^([^/ ]+)%S* (%d+)$')
  if by and tonumber(at) >= tonumber(ARGV[2]) then return by, at end
  return nil
end
local fence = nil
if ARGV[11] ~= '' then fence = cjson.decode(ARGV[11]) end
local crossed = nil
local function fenceCrossed()
  if fence == nil then return false end
  if crossed == nil then
    local owners, count = {}, 0
    for _, owner in ipairs(fence.o) do owners[tagOf(owner)] = true end
    foreignClaims(KEYS[4], ARGV[10], owners, fence.at, function() count = count + 1 end)
    crossed = count > tonumber(fence.n)
  end
  return crossed
end
local claims = 0
local function claimedBy(pod)
  local by, at = claimOf(pod)
  if by then
    if by ~= ARGV[10] then return at end
    return nil
  end
  local owner = ''
  if type(pod.o) == 'string' then
    owner = '/' .. tagOf(string.match(pod.o, '^[^/]*/(.*)$'))
    if theirs[pod.u] then owner = owner .. '/r' end
  end
  redis.call('HSET', KEYS[4], pod.u, ARGV[10] .. owner .. ' ' .. ARGV[6])
  claims = claims + 1
  return nil
end`;

/** `RECORD_SENT`'s last word on claims: once any was written, those past the age limit go. */
export const PRUNE_CLAIMS = `if claims > 0 then
  local all = redis.call('HGETALL', KEYS[4])
  for i = 1, #all, 2 do
    local at = string.match(all[i + 1], ' (%d+)$')
    if not at or tonumber(at) < tonumber(ARGV[2]) then redis.call('HDEL', KEYS[4], all[i]) end
  end
  redis.call('PEXPIRE', KEYS[4], ARGV[3])
end`;

/**
 * `READ_SENT`'s claims (after `found`, the field read): those other directives made on pods of the
 * owners given, three entries each (uid, second, `r` or ''); then their runs' originals (uid,
 * second, `p`).
 */
export const READ_CLAIMS = `local owners = {}
for _, owner in ipairs(cjson.decode(ARGV[4])) do owners[tagOf(owner)] = true end
if next(owners) == nil then return found end
foreignClaims(KEYS[2], ARGV[2], owners, ARGV[3], function(uid, at, mark)
  table.insert(found, uid)
  table.insert(found, at)
  table.insert(found, mark == '/r' and 'r' or '')
end)
local all = redis.call('HGETALL', KEYS[2])
for i = 1, #all, 2 do
  local uid, by, at = string.match(all[i] .. ' ' .. all[i + 1], '^p:(%S+) (%S+) (%d+)$')
  if uid and by ~= ARGV[2] and tonumber(at) >= tonumber(ARGV[3]) then
    for _, part in ipairs({ uid, at, 'p' }) do table.insert(found, part) end
  end
end`;
