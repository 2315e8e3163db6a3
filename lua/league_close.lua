-- TypeScript face: leagueCloseCall in src/engine/calls/league.ts.
-- Close a run: its tie counter goes to CLOSED_TICK_VALUE (lua/lib/50-leagues.lua),
-- so an event still computed for it no longer enters its cohorts and the
-- finalizer and a user's next join read the same frozen ranks.
-- KEYS (named as in src/redis/keys.ts): 1 leagueRun (absent when nobody played it: left so).
lg_close(KEYS[1])
return 1
