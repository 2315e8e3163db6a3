-- TypeScript face: userJobCall in src/engine/calls/small.ts (KEYS/ARGV built there in this order).
-- Grant the time-trigger points one user is due (called by the scheduler).
-- KEYS (named as in src/redis/keys.ts): 1 config, 2 user, 3 due (time triggers), 4 stream (changes),
--       5 recent (the user's recent history)
-- ARGV: 1 config version, 2 now (ms), 3 user id, 4 points program (JSON),
--       5 the user's own boosts (JSON), 6 local date, 7 operation id
-- Replies: {'STALE'} | {'OK', points changes (JSON)}
local cfg, user, due, stream = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local now, id = tonumber(ARGV[2]), ARGV[3]
if config_is_stale(cfg, ARGV[1]) then return {'STALE'} end

local created = uget(user, CREATED_FIELD)
if not created then
  redis.call('ZREM', due, id)
  return {'OK', '{}'}
end
local P = pts_new(user, {}, {}, ARGV[6], decode_once(ARGV[4]), cjson.decode(ARGV[5]))
local next_due = pts_time(P, tonumber(created), now)
local points = pts_commit(P)
pts_recent(P, KEYS[5], ARGV[7], ARGV[2])
if next_due then redis.call('ZADD', due, next_due, id) else redis.call('ZREM', due, id) end
if points ~= '{}' or CHANGED_N > 0 then
  append_change(stream, CR_KIND, KIND_TIME_GRANT, CR_USER, id, CR_AT, ARGV[2], CR_EVENT, ARGV[7], CR_DATE, ARGV[6], CR_POINTS, points, CR_USER_FIELDS, changed_json())
end
return {'OK', points}
