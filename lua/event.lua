-- TypeScript face: eventCall in src/engine/calls/event.ts (KEYS/ARGV built there in this order).
-- Apply one metric event atomically and say everything the response needs.
-- KEYS (named as in src/redis/keys.ts): 1 config, 2 user, 3 idempotency (a bucket), 4 stream (changes),
--       5 stats (the tenant's counters), 6 due (time triggers), 7 boardTicks (leaderboard
--       update counters), 8 retentionDue (users by when the scheduler should next look
--       at them), 9 recent (the user's recent history). Leaderboard sets are named
--       from the prefix in ARGV[14] (all in the tenant's slot).
-- ARGV: 1 config version, 2 metric slot, 3 value, 4 now (ms), 5 idempotency
--       member ('' when none), 6 zone the dates were computed in,
--       7 user patch (JSON object), 8 event record (JSON, for the stream),
--       9 points program's name (see program_ref), 10 the user's own boosts (JSON), 11 local date,
--       12 current streak periods and active frequency 'day,week,month,f'
--          ('' when streaks are off), 13 leaderboards this event may move (JSON),
--       14 leaderboard key prefix, 15 backlog limit (unflushed change records),
--       16 user id, 17 event attributes (JSON object, '' when none),
--       18 the points program's text when ARGV 9 only names it ('' to use the stored one),
--       19 retention due times 'base,r0,r1' (src/domain/retention.ts eventDueArg; '' when off)
-- ARGV 20: the event's id (the operation its award ids derive from)
-- ARGV 21: leagues this event may move (JSON, '' when none; lua/lib/50-leagues.lua), 22 league key prefix
-- Replies: {'STALE'} | {'PROGRAM'} (send its text) | {'BACKLOG'} | {'TZ', zone} | {'REPLAY', total, streak state} | {'BLOCKED', system slot}
--        | {'OK', total, points changes (JSON), completed achievements (JSON), streak (JSON),
--           leaderboard changes (JSON), league changes (JSON)}
local cfg, user, idem, stream, stats = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local ver, slot, value, now, member, zone = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]
local total_field = TOTAL_PREFIX .. slot

if config_is_stale(cfg, ver) then return {'STALE'} end
local prog = program_ref(cfg, ver, ARGV[9], ARGV[18])
if prog == nil then return {'PROGRAM'} end
-- Postgres has been away too long: refuse rather than grow the stream without bound.
if redis.call('XLEN', stream) >= tonumber(ARGV[15]) then return {'BACKLOG'} end

-- A replay changes nothing, not even the profile sent with it.
if member ~= '' and redis.call('SISMEMBER', idem, member) == 1 then
  local act = string.match(ARGV[12], ',(%a)$')
  return {'REPLAY', uget(user, total_field) or '0', act and uget(user, STREAK_PREFIX .. act) or ''}
end

-- Dates are computed by the caller in the user's zone; make sure it guessed
-- the zone this event will be counted in.
local patch = decode_once(ARGV[7])
local effective = patch[ZONE_FIELD]
if effective == nil then effective = uget(user, ZONE_FIELD) end -- false when unset
if not effective or effective == '' then effective = default_zone(cfg) end
if effective ~= zone then return {'TZ', effective} end

-- Evaluate everything first; write only if nothing blocks.
local prev = tonumber(uget(user, total_field) or '0')
local nslot, nvalue = tonumber(slot), tonumber(value)
local ntotal = round_total(prev + nvalue)
local total = fmt_total(ntotal)
local P = pts_new(user, patch, ARGV[17] ~= '' and cjson.decode(ARGV[17]) or EMPTY, ARGV[11], prog, decode_once(ARGV[10]))
local is_new = not uget(user, CREATED_FIELD)
if (is_new and not pts_created(P)) or not pts_metric(P, prev, ntotal) then
  return {'BLOCKED', tostring(P.blocked)}
end
-- Nothing can block from here on; streak state is written as it is settled.
local streak, S, streak_len, streak_done = '', nil, nil, false
if ARGV[12] ~= '' then
  local d, w, m = string.match(ARGV[12], '^(-?%d+),(-?%d+),(-?%d+),')
  local idx = { d = tonumber(d), w = tonumber(w), m = tonumber(m) }
  S = stk_new(user, P.prog.sk, now, idx.d)
  local st, extended = stk_run(S, idx, nslot, nvalue)
  -- Extended in the current period: the next reminder is the next period's.
  streak_done = st ~= nil and st.lp >= (idx[S.sk.act] or 0)
  streak = stk_reply(S, st, extended)
  streak_len = st.len
  stk_consequences(P, st.len, extended, now)
end
ach_metric(P, ntotal, now)

local created, changed = apply_user_patch(user, stats, patch, now, cfg)
if created then
  recent_track(KEYS[9])
  if #P.prog.tt > 0 then redis.call('ZADD', KEYS[6], 'LT', now, ARGV[16]) end
end
uset(user, total_field, total)
-- Retention: the last active date, and when the scheduler should next look
-- at the user (the earliest recap, reactivation or streak reminder that may
-- be due). Control-group users get no email-due webhooks: never scheduled.
if ARGV[19] ~= '' and uget(user, CONTROL_FIELD) ~= '1' then
  local base, r0, r1 = string.match(ARGV[19], '^([^,]*),([^,]*),([^,]*)$')
  -- The score goes to ZADD as the text it came as: Redis would print a number with the float printf.
  local score, score_text = tonumber(base), base
  if streak_len and streak_len > 0 and r0 ~= '' then
    local r_text = streak_done and r1 or r0
    local r = tonumber(r_text)
    if score == nil or r < score then score, score_text = r, r_text end
  end
  if uget(user, LAST_ACTIVE_FIELD) ~= ARGV[11] then uset(user, LAST_ACTIVE_FIELD, ARGV[11]) end
  if score then redis.call('ZADD', KEYS[8], score_text, ARGV[16]) end
end
local points = pts_commit(P)
pts_recent(P, KEYS[9], ARGV[20], now)
local done = ach_commit(P, stats)
local periods = S and stk_commit(S) or '[]'
local boards = lb_update(P, decode_once(ARGV[13]), ARGV[16], ARGV[14], KEYS[7], nslot, nvalue, ntotal, streak_len, KEYS[9], now)
local leagues = ARGV[21] ~= '' and lg_update(P, decode_once(ARGV[21]), ARGV[16], ARGV[22], nslot, nvalue) or '[]'
if member ~= '' then redis.call('SADD', idem, member) end
-- Packed into one field, in PACKED_EVENT's order (src/domain/change-record.ts):
-- event, total, created, patch, points, completions, periods, boards, leagues, user fields.
-- One concatenation (a single Lua instruction over all of them; no table).
local SEP = CR_SEPARATOR
append_change(stream, KIND_EVENT, ARGV[8] .. SEP .. total .. SEP .. (created and now or '') .. SEP .. (changed and ARGV[7] or '')
  .. SEP .. points .. SEP .. done .. SEP .. periods .. SEP .. boards .. SEP .. leagues .. SEP .. changed_json())
return {'OK', total, points, done, streak, boards, leagues}
