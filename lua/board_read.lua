-- TypeScript face: boardReadCall in src/engine/calls/board-read.ts (KEYS/ARGV built there in this order).
-- One page of a live leaderboard set with each ranked user's name, in one
-- call (a page of ten was one ZREVRANGE plus ten HGETs, two round trips).
-- KEYS (named as in src/redis/keys.ts): 1 board (one run and group of a board).
-- ARGV: 1 first index (0-based), 2 last index,
--       3 user key prefix (the user id completes the key; same hash tag),
--       4 a user id the indexes count from (Trophy's `userId`: the page starts
--         at that user's place), or '' to count from the top
-- Replies: {} when nothing is ranked there (or the user is not) | {index of the first, user id, score, name (nil when unset), ...}
local first, last = tonumber(ARGV[1]), tonumber(ARGV[2])
if ARGV[4] ~= '' then
  local r = redis.call('ZREVRANK', KEYS[1], ARGV[4])
  if not r then return {} end
  first, last = r + first, r + last
end
local flat = redis.call('ZREVRANGE', KEYS[1], first, last, 'WITHSCORES')
if #flat == 0 then return {} end
local out = {first}
for i = 1, #flat, 2 do
  out[#out + 1] = flat[i]
  out[#out + 1] = flat[i + 1]
  -- false, not nil: a nil would end the array; it reaches the caller as null.
  out[#out + 1] = redis.call('HGET', ARGV[3] .. flat[i], NAME_FIELD)
end
return out
