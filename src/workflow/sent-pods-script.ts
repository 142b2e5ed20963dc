import { CLAIM_POD, FOREIGN_CLAIMS, PRUNE_CLAIMS, READ_CLAIMS } from './pod-claims-script.js';

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
 *    twice. The first entry a job records takes along its originals, kept beside its field when it
 *    chose (`originalsAtChoice`: pods created in that second that a later run cannot tell from
 *    this chunk's replacements by their creationTimestamp), as `p`, and in the namespace's record
 *    for other directives (a re-created one too), `p:<uid>` → `<directive uid> <second>` (no
 *    claim: no `/`); they are dropped there.
 * 3. Beside them, the run's owners: each pod's controller owner keeps the earliest second one of
 *    its pods was sent a bounce in by this run.
 * 4. Every pod this selector is to send (bare ones too) is claimed in its namespace's record of
 *    pods sent, for any directive: a pod another directive claimed within the age limit was sent
 *    by that directive's run, so it is answered `uid@second` (the second it was sent in) and not
 *    sent; it stays recorded above, down as it is. A claim of this directive's own (an earlier
 *    attempt, another run or selector of it) is kept as it is, and the pod goes. Entries past the
 *    age limit are dropped whenever a claim is written. What a claim reads: `pod-claims-script.ts`.
 *    With a fence (what the selector's batch gate counted: the claims other directives had made
 *    on its owners' pods), a pod not claimed yet goes only while they have made no more since:
 *    else it is held back with the rest of the chunk, as in step 0, by the selector's own budget
 *    (two directives' gates that opened at once do not both send).
 *
 * 0. With several selectors at once, a controlled pod not sent yet goes only while every selector
 *    of the run that chose it (its registration, `RECORD_CHOSEN`) stays within its maxUnavailable:
 *    its controlled chosen pods the run sent, less its credit (its Ready replacements, as the
 *    caller counted them just before; 0 when not given), plus the pods let through now. The pods
 *    from the first that does not fit on are held back, untouched, and answered `!uid`, with the
 *    selector whose budget held them, `#index`. Checked and recorded in one step, so two selectors
 *    sending at the same moment cannot both take the last place.
 *
 * KEYS: the hash of sent pods, the run's owners, the run's sent pods, the namespace's claims.
 * ARGV: the field, the oldest `since` kept, the key's TTL in ms, the chunk's pods (JSON, `u` its
 * uid, `o` its owner's key when it has one), the job's field (what it inherited when it chose),
 * the second sent in, the run keys' TTL in ms, the selector's mark ('' with one selector at a
 * time: nothing is checked nor recorded per run), the credits (JSON object, selector index → count),
 * the directive's uid, the fence ('' for none, else JSON: `n` the claims counted, `at` the oldest
 * second they were counted from, `o` the owners as `<kind>/<name>`, `i` the selector's index),
 * the field of the job's originals.
 * Answers the uids dropped (and those held back, marked).
 */
export const RECORD_SENT = `${FOREIGN_CLAIMS}
local mine = ARGV[8]
local taken = {}
local controlled = {}
local credits = cjson.decode(ARGV[9])
local down = {}
local function fits(pod)
  if mine == '' or type(pod.o) ~= 'string' or redis.call('HEXISTS', KEYS[3], pod.u) == 1 then return true end
  local list = redis.call('HGET', KEYS[3], 'p:' .. pod.u)
  if not list then return true end
  local selectors = {}
  for j in string.gmatch(list, '%S+') do
    local raw = redis.call('HGET', KEYS[3], 's:' .. j)
    if raw then
      local chosen = cjson.decode(raw)
      if down[j] == nil then
        local sent = 0
        for _, uid in ipairs(chosen.o) do sent = sent + redis.call('HEXISTS', KEYS[3], uid) end
        down[j] = sent - tonumber(credits[j] or 0)
      end
      if down[j] + 1 > tonumber(chosen.m) then return false, j end
      table.insert(selectors, j)
    end
  end
  for _, j in ipairs(selectors) do down[j] = down[j] + 1 end
  return true
end
local theirs = {}
local inherited = redis.call('HGET', KEYS[1], ARGV[5])
if inherited then
  local decoded = cjson.decode(inherited)
  if type(decoded.theirs) == 'table' then
    for _, uid in ipairs(decoded.theirs) do theirs[uid] = true end
  end
end
${CLAIM_POD}
local held = false
for _, pod in ipairs(cjson.decode(ARGV[4])) do
  local holder = false
  if mine ~= '' then holder = redis.call('HGET', KEYS[3], pod.u) end
  local ok, by = true, nil
  if not held and not (holder and holder ~= mine) then
    ok, by = fits(pod)
    if ok and claimOf(pod) == nil and fenceCrossed() then ok, by = false, fence.i end
  end
  if held or not ok then
    if not held then table.insert(taken, '#' .. by) end
    held = true
    table.insert(taken, '!' .. pod.u)
  elseif holder and holder ~= mine then
    table.insert(taken, pod.u)
  else
    local at = claimedBy(pod)
    if at then table.insert(taken, pod.u .. '@' .. at) end
    if mine ~= '' then redis.call('HSET', KEYS[3], pod.u, mine) end
    if type(pod.o) == 'string' then table.insert(controlled, pod) end
  end
end
if mine ~= '' then redis.call('PEXPIRE', KEYS[3], ARGV[7]) end
${PRUNE_CLAIMS}
if #controlled == 0 then return taken end
local kept = {}
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if raw then
  for _, entry in ipairs(cjson.decode(raw)) do
    if tonumber(entry.s) >= tonumber(ARGV[2]) then table.insert(kept, entry) end
  end
end
local originals = redis.call('HGET', KEYS[1], ARGV[12])
for _, pod in ipairs(controlled) do
  local entry = { u = pod.u, s = tonumber(ARGV[6]) }
  if theirs[pod.u] then entry.r = 1 end
  if originals then
    entry.p = cjson.decode(originals)
    originals = false
    redis.call('HDEL', KEYS[1], ARGV[12])
    for _, uid in ipairs(entry.p) do redis.call('HSET', KEYS[4], 'p:' .. uid, ARGV[10] .. ' ' .. ARGV[6]) end
    redis.call('PEXPIRE', KEYS[4], ARGV[3])
  end
  table.insert(kept, entry)
  local first = redis.call('HGET', KEYS[2], pod.o)
  if not first or tonumber(first) > tonumber(ARGV[6]) then redis.call('HSET', KEYS[2], pod.o, ARGV[6]) end
end
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(kept))
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[7])
return taken
`;

/**
 * A selector's registration among the run's sent pods, once, before its first batch (several
 * selectors at once only): `s:<index>` its choice and limit, and `p:<uid>` per controlled chosen
 * pod the selectors that chose it, which `RECORD_SENT` checks every pod sent against.
 *
 * KEYS: the run's sent pods. ARGV: the selector's index, its registration (JSON: `n` namespace,
 * `l` labels, `m` maxUnavailable, `o` its chosen uids that count as down once sent, `b` the
 * rest), the TTL.
 */
export const RECORD_CHOSEN = `
local field = 's:' .. ARGV[1]
if redis.call('HSETNX', KEYS[1], field, ARGV[2]) == 1 then
  for _, uid in ipairs(cjson.decode(ARGV[2]).o) do
    local list = redis.call('HGET', KEYS[1], 'p:' .. uid) or ''
    redis.call('HSET', KEYS[1], 'p:' .. uid, list .. ' ' .. ARGV[1])
  end
end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`;

/**
 * What a selector counts as down of other runs' and directives' bounces (`sent-pods.ts`), in one
 * step: a field of the hash of sent pods (the selector's entries, or what a job inherited), and
 * the claims of the namespace's record that another directive made within the age limit on pods
 * of the owners given, by their tags (answered by three: uid, second, `r` for a replacement's
 * slot or ''); then the originals other directives' runs marked within it (uid, second, `p`).
 * Claims without an owner (bare pods, never replaced) are not answered.
 *
 * KEYS: the hash of sent pods, the namespace's claims. ARGV: the field, the directive's uid, the
 * oldest second kept, the owners (JSON array of `<kind>/<name>`).
 */
export const READ_SENT = `${FOREIGN_CLAIMS}
local found = { redis.call('HGET', KEYS[1], ARGV[1]) or '' }
${READ_CLAIMS}
return found
`;
