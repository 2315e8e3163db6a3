-- TypeScript face: userEraseCall in src/engine/calls/small.ts (KEYS/ARGV built there in this order).
-- Erase one user's hot state (DELETE /admin/v1/users/{id}, see
-- src/store/privacy.ts): the user hash and recent history, the tenant's counters that counted
-- them (users, each achievement's completions), their place in the
-- time-trigger due set, every leaderboard set (the others re-rank) and the
-- retention due set (passed among the sets),
-- and their used idempotency keys. Appends a marker record to the change
-- stream (no user id in it): its position splits the user's records into
-- those before the erasure, which the flusher drops, and those after.
-- KEYS (named as in src/redis/keys.ts): 1 user, 2 stats (the tenant's counters), 3 due (time triggers),
--       4 stream (changes), 5 recent (the user's recent history), then as many board
--       sets as ARGV[2] says, then one idempotency bucket per member
-- ARGV: 1 user id, 2 number of leaderboard sets, then the user's idempotency
--       members (each in the bucket named by the matching key)
-- Replies: {existed (1|0), the marker's stream id}
local user, stats, due, stream = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local id, boards = ARGV[1], tonumber(ARGV[2])

local existed = 0
local flat = redis.call('HGETALL', user)
for i = 1, #flat, 2 do
  local f = flat[i]
  if f == CREATED_FIELD then
    existed = 1
    if tonumber(redis.call('HGET', stats, USERS_STAT) or '0') > 0 then redis.call('HINCRBY', stats, USERS_STAT, -1) end
  else
    -- a<slot>: an achievement completed (attributes are 'a:<key>').
    local slot = string.match(f, '^' .. ACHIEVED_PREFIX .. '(%d+)$')
    if slot then
      local field = COMPLETIONS_PREFIX .. slot
      if tonumber(redis.call('HGET', stats, field) or '0') > 0 then redis.call('HINCRBY', stats, field, -1) end
    end
  end
end
if #flat > 0 then redis.call('DEL', user) end
redis.call('DEL', KEYS[5])
redis.call('ZREM', due, id)
for i = 1, boards do redis.call('ZREM', KEYS[5 + i], id) end
for i = 3, #ARGV do redis.call('SREM', KEYS[5 + boards + i - 2], ARGV[i]) end
local marker = redis.call('XADD', stream, '*', CR_KIND, KIND_ERASURE)
return {existed, marker}
