-- TypeScript face: userJobCall in src/engine/calls/small.ts (KEYS/ARGV built there in this order).
-- Complete whatever achievements a user already qualifies for (run by the
-- scheduler after achievements are activated or edited). Completing is
-- idempotent: an achievement already held is skipped, so its points triggers
-- never fire twice.
-- KEYS (named as in src/redis/keys.ts): 1 config, 2 user, 3 stream (changes), 4 stats (the tenant's counters),
--       5 recent (the user's recent history)
-- ARGV: 1 config version, 2 now (ms), 3 user id, 4 review program (JSON),
--       5 the user's own boosts (JSON), 6 local date, 7 operation id
-- Replies: {'STALE'} | {'OK', completions (JSON)}
local cfg, user, stream, stats = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local now, id = ARGV[2], ARGV[3]
if config_is_stale(cfg, ARGV[1]) then return {'STALE'} end
if not uget(user, CREATED_FIELD) then return {'OK', '[]'} end

local P = pts_new(user, {}, {}, ARGV[6], decode_once(ARGV[4]), cjson.decode(ARGV[5]))
ach_metric(P, nil, now)
if P.prog.sk.act ~= '' then
  -- Streak achievements against the active streak's length as it stands.
  stk_consequences(P, stk_load(user, P.prog.sk.act).len, false, now)
  ach_composites(P, now)
end
local points = pts_commit(P)
pts_recent(P, KEYS[5], ARGV[7], now)
local done = ach_commit(P, stats)
if done ~= '[]' or CHANGED_N > 0 then
  -- 'o': a review's completions are backdated (webhooks do not report them).
  append_change(stream, CR_KIND, KIND_USER, CR_ORIGIN, 'review', CR_USER, id, CR_AT, now, CR_EVENT, ARGV[7], CR_DATE, ARGV[6], CR_CREATED, '', CR_PATCH, '', CR_POINTS, points, CR_COMPLETIONS, done, CR_USER_FIELDS, changed_json())
end
return {'OK', done}
