-- TypeScript face: streakCall in src/engine/calls/streak.ts (KEYS/ARGV built there in this order).
-- Settle a user's streak up to now (missed periods: pause, freeze or loss) and
-- report it. Settling is a pure function of the state and the date, so doing
-- it on a read is safe to repeat.
-- KEYS (named as in src/redis/keys.ts): 1 config, 2 user, 3 stream (changes)
-- ARGV: 1 config version, 2 now (ms), 3 user id, 4 points program (JSON),
--       5 current streak periods and active frequency 'day,week,month,f', 6-7 unused
-- (ARGV 8: the zone the periods were computed in)
-- Replies: {'STALE'} | {'NOTFOUND'} | {'TZ', zone} | {'OK', streak (JSON), unflushed (see unflushed(); a record of this read that settled no period aside),
--          recent history of the active frequency (H<f>, see stk_history; '' when none), pauses (pz; '' when none)}
local cfg, user, stream = KEYS[1], KEYS[2], KEYS[3]
if config_is_stale(cfg, ARGV[1]) then return {'STALE'} end
if not uget(user, CREATED_FIELD) then return {'NOTFOUND'} end
local moved = zone_mismatch(cfg, user, ARGV[8])
if moved then return {'TZ', moved} end
-- The user's last record before any this read appends (see the reply below).
local before = uget(user, LAST_CHANGE_FIELD)
local d, w, m = string.match(ARGV[5], '^(-?%d+),(-?%d+),(-?%d+),')
local S = stk_new(user, decode_once(ARGV[4]).sk, ARGV[2], tonumber(d))
local st = stk_run(S, { d = tonumber(d), w = tonumber(w), m = tonumber(m) }, nil, 0)
local periods = stk_commit(S)
if periods ~= '[]' or CHANGED_N > 0 then
  append_change(stream, CR_KIND, KIND_USER, CR_USER, ARGV[3], CR_AT, ARGV[2], CR_CREATED, '', CR_PATCH, '', CR_PERIODS, periods, CR_USER_FIELDS, changed_json())
end
-- The history and pauses come from this hash (H<f>, pz) unless the window
-- reaches further back than H<f> keeps; then from Postgres, which must first
-- hold the user's records. A record of this read that settled no period adds
-- nothing there, so then only the user's earlier records count as unflushed.
return {'OK', stk_reply(S, st, false), unflushed_since(periods ~= '[]' and LAST_CHANGE or before, stream),
  uget(user, stk_history_field(S.sk.act)) or '', uget(user, PAUSES_FIELD) or ''}
