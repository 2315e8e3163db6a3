-- TypeScript face: leagueCloseCall in src/engine/calls/league.ts.
-- Close a league's runs before ARGV 1: an event of an older run no longer
-- enters its cohorts (lua/lib/50-leagues.lua), so the finalizer and a user's
-- next join read the same frozen ranks.
-- KEYS: 1 the league's state hash.  ARGV: 1 the oldest run still open.
local open = tonumber(redis.call('HGET', KEYS[1], 'o') or '-1')
if tonumber(ARGV[1]) > open then redis.call('HSET', KEYS[1], 'o', ARGV[1]) end
return 1
