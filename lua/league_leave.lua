-- TypeScript face: leagueLeaveCall in src/engine/calls/league.ts.
-- Take an erased user out of their cohort (the others' ranks close up) and
-- out of the settled tiers; the cohort has room again, so the fill pointer
-- of its tier goes back to it.
-- KEYS (named as in src/redis/keys.ts): 1 cohort (the league's leagueTiers key when none), 2 leagueRun (the
-- cohort's), 3 leagueTiers.
-- ARGV: 1 user id, 2 tier index, 3 cohort number.
if KEYS[1] ~= KEYS[3] and redis.call('ZREM', KEYS[1], ARGV[1]) == 1 then
  local f = RUN_ROOM_PREFIX .. ARGV[2]
  local at = tonumber(redis.call('HGET', KEYS[2], f) or '1')
  if tonumber(ARGV[3]) < at then redis.call('HSET', KEYS[2], f, ARGV[3]) end
end
redis.call('HDEL', KEYS[3], ARGV[1])
return 1
