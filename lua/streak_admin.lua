-- TypeScript face: streakCall in src/engine/calls/streak.ts (KEYS/ARGV built there in this order).
-- Admin changes to one user's streak: grant a freeze, replace the pauses,
-- or restore the length last lost. Settles first, so the change applies to
-- the streak as it stands now.
-- KEYS (named as in src/redis/keys.ts): 1 config, 2 user, 3 stream (changes)
-- ARGV: 1 config version, 2 now (ms), 3 user id, 4 points program (JSON),
--       5 current streak periods and active frequency 'day,week,month,f',
--       6 operation ('freeze' | 'pauses' | 'restore'), 7 pauses (JSON, for 'pauses')
-- (ARGV 8: the zone the periods were computed in)
-- Replies: {'STALE'} | {'NOTFOUND'} | {'TZ', zone} | {'FULL'} | {'NOTHING'} | {'OK', streak (JSON)}
local cfg, user, stream = KEYS[1], KEYS[2], KEYS[3]
if config_is_stale(cfg, ARGV[1]) then return {'STALE'} end
if not uget(user, CREATED_FIELD) then return {'NOTFOUND'} end
local moved = zone_mismatch(cfg, user, ARGV[8])
if moved then return {'TZ', moved} end
local op = ARGV[6]
if op == 'pauses' then
  -- Pauses are set before settling so a pause covering a missed period holds it.
  if ARGV[7] == '[]' then udel(user, PAUSES_FIELD) else uset(user, PAUSES_FIELD, ARGV[7]) end
end
local d, w, m = string.match(ARGV[5], '^(-?%d+),(-?%d+),(-?%d+),')
local idx = { d = tonumber(d), w = tonumber(w), m = tonumber(m) }
local S = stk_new(user, decode_once(ARGV[4]).sk, ARGV[2], idx.d)
local st = stk_run(S, idx, nil, 0)
local reply = 'OK'
if op == 'freeze' then
  if S.fz >= S.sk.max then reply = 'FULL' else S.fz, S.changed = S.fz + 1, true end
elseif op == 'restore' then
  local f = S.sk.act
  if st.lost <= 0 then
    reply = 'NOTHING'
  elseif st.len > 0 then
    -- Already started again: the gap is forgiven, both runs join up.
    st.len, st.started, st.lost = st.len + st.lost, st.ls, 0
    stk_save(user, f, st)
    stk_record(S, f, st.lp, st.len, false, false)
  else
    -- The restored streak counts as extended through the previous period.
    local n = idx[f]
    st.len, st.started, st.lp, st.settled, st.lost = st.lost, st.ls, n - 1, n - 1, 0
    stk_save(user, f, st)
    stk_record(S, f, n - 1, st.len, false, false)
  end
end
local periods = stk_commit(S)
if periods ~= '[]' or CHANGED_N > 0 then
  append_change(stream, CR_KIND, KIND_USER, CR_USER, ARGV[3], CR_AT, ARGV[2], CR_CREATED, '', CR_PATCH, '', CR_PERIODS, periods, CR_USER_FIELDS, changed_json())
end
if reply ~= 'OK' then return {reply} end
return {'OK', stk_reply(S, st, false)}
