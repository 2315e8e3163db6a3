-- TypeScript face: userUpsertCall in src/engine/calls/user-upsert.ts (KEYS/ARGV built there in this order).
-- Create or update a user's profile (user_creation points triggers included).
-- KEYS (named as in src/redis/keys.ts): 1 config, 2 user, 3 stream (changes), 4 stats (the tenant's counters),
--       5 due (time triggers), 6 recent (the user's recent history)
-- ARGV: 1 config version, 2 now (ms), 3 mode ('upsert' | 'update'),
--       4 user id, 5 patch (JSON object), 6 points program (JSON),
--       7 the user's own boosts (JSON), 8 local date, 9 operation id
-- Replies: {'STALE'} | {'NOTFOUND'} | {'BLOCKED', system slot}
--        | {'OK', created, points changes (JSON), completions (JSON), field, value, ...}
local cfg, user, stream, stats = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local ver, now, mode, id = ARGV[1], ARGV[2], ARGV[3], ARGV[4]

if config_is_stale(cfg, ver) then return {'STALE'} end
if mode == 'update' and redis.call('EXISTS', user) == 0 then return {'NOTFOUND'} end

local patch = cjson.decode(ARGV[5])
local P = pts_new(user, patch, {}, ARGV[8], decode_once(ARGV[6]), cjson.decode(ARGV[7]))
if not uget(user, CREATED_FIELD) and not pts_created(P) then
  return {'BLOCKED', tostring(P.blocked)}
end
-- New attributes may open composites whose user filters now match.
ach_composites(P, now)

local created, changed = apply_user_patch(user, stats, patch, now, cfg)
if created then
  recent_track(KEYS[6])
  if #P.prog.tt > 0 then redis.call('ZADD', KEYS[5], 'LT', now, id) end
end
local points = pts_commit(P)
pts_recent(P, KEYS[6], ARGV[9], now)
local done = ach_commit(P, stats)
if CHANGED_N > 0 or done ~= '[]' then
  append_change(stream, CR_KIND, KIND_USER, CR_USER, id, CR_AT, now, CR_EVENT, ARGV[9], CR_DATE, ARGV[8],
    CR_CREATED, created and now or '', CR_PATCH, changed and ARGV[5] or '', CR_POINTS, points, CR_COMPLETIONS, done, CR_USER_FIELDS, changed_json())
end
local reply = {'OK', created and '1' or '0', points, done}
for f, v in pairs(user_view(user)) do
  reply[#reply + 1] = f
  reply[#reply + 1] = v
end
return reply
