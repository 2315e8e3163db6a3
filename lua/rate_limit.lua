-- TypeScript face: rateLimitCall in src/engine/calls/small.ts (KEYS/ARGV built there in this order).
-- One request against an API key's rate limit: GCRA (generic cell rate
-- algorithm). The key holds the theoretical arrival time (TAT): when the
-- bucket would be empty again. A request is allowed if, after adding one
-- emission interval, the TAT is at most `burst` intervals ahead of now.
-- Times are whole microseconds, exact in a double, so no rounding drifts.
-- KEYS (named as in src/redis/keys.ts): 1 rateLimit (the API key's state).
-- ARGV: 1 now (ms), 2 emission interval (µs), 3 burst
-- Replies: {allowed (1|0), remaining, retry after (ms), until full again (ms)}
local now = tonumber(ARGV[1]) * 1000
local interval = tonumber(ARGV[2])
local burst = tonumber(ARGV[3])
local tat = tonumber(redis.call('GET', KEYS[1])) or now
if tat < now then tat = now end
local new_tat = tat + interval
local allow_at = new_tat - burst * interval
if now < allow_at then
  return {0, 0, math.ceil((allow_at - now) / 1000), math.ceil((tat - now) / 1000)}
end
-- The state expires a minute after the bucket is full again, so idle keys
-- cost nothing, and a caller's clock that runs apart from Redis's (skew, a
-- test's) never sees it vanish early: a state past its time reads as full.
local full_in = math.ceil((new_tat - now) / 1000)
redis.call('SET', KEYS[1], string.format('%.0f', new_tat), 'PX', full_in + 60000)
return {1, math.floor((now - allow_at) / interval), 0, full_in}
