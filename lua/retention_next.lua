-- TypeScript face: retentionNextCall in src/engine/calls/small.ts (KEYS/ARGV built there in this order).
-- Move a user's next retention check (the scheduler, after a visit), unless
-- an event moved it meanwhile: the event computed it from newer state.
-- KEYS (named as in src/redis/keys.ts): 1 retentionDue.
-- ARGV: 1 user id, 2 the score the visit read, 3 the next (ms; '' to leave the set)
-- Replies: 1 when moved, 0 when the score had changed
local seen = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not seen or tonumber(seen) ~= tonumber(ARGV[2]) then return 0 end
if ARGV[3] == '' then
  redis.call('ZREM', KEYS[1], ARGV[1])
else
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
end
return 1
