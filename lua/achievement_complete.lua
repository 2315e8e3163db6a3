-- TypeScript face: achievementCompleteCall in src/engine/calls/achievement-complete.ts (KEYS/ARGV built there in this order).
-- Complete an API achievement for a user (created or updated from the body).
-- KEYS (named as in src/redis/keys.ts): 1 config, 2 user, 3 stream (changes), 4 stats (the tenant's counters),
--       5 due (time triggers), 6 recent (the user's recent history)
-- ARGV: 1 config version, 2 now (ms), 3 user id, 4 patch (JSON), 5 points
--       program (JSON), 6 the user's own boosts (JSON), 7 local date,
--       8 operation id, 9 achievement slot, 10 achievement id,
--       11 the achievement's user attribute filters (JSON)
-- Replies: {'STALE'} | {'DONE', achieved at} | {'FILTERED'} | {'BLOCKED', system slot}
--        | {'OK', points changes (JSON), completions (JSON)}
local cfg, user, stream, stats, due = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local now, id, slot = ARGV[2], ARGV[3], ARGV[9]
if config_is_stale(cfg, ARGV[1]) then return {'STALE'} end

-- Completing twice changes nothing and reports the first completion.
local at = uget(user, ACHIEVED_PREFIX .. slot)
if at then return {'DONE', at} end

local patch = cjson.decode(ARGV[4])
local P = pts_new(user, patch, {}, ARGV[7], decode_once(ARGV[5]), cjson.decode(ARGV[6]))
if not pts_filters_ok(P, cjson.decode(ARGV[11]), false) then return {'FILTERED'} end
if not uget(user, CREATED_FIELD) and not pts_created(P) then
  return {'BLOCKED', tostring(P.blocked)}
end
ach_complete(P, { i = ARGV[10], k = tonumber(slot) }, now)
ach_composites(P, now)

local created, changed = apply_user_patch(user, stats, patch, now, cfg)
if created then
  recent_track(KEYS[6])
  if #P.prog.tt > 0 then redis.call('ZADD', due, 'LT', now, id) end
end
local points = pts_commit(P)
pts_recent(P, KEYS[6], ARGV[8], now)
local done = ach_commit(P, stats)
append_change(stream, CR_KIND, KIND_USER, CR_USER, id, CR_AT, now, CR_EVENT, ARGV[8], CR_DATE, ARGV[7],
  CR_CREATED, created and now or '', CR_PATCH, changed and ARGV[4] or '', CR_POINTS, points, CR_COMPLETIONS, done, CR_USER_FIELDS, changed_json())
return {'OK', points, done}
