-- Create or update a user's profile.
-- KEYS: 1 config, 2 user, 3 change stream, 4 tenant stats
-- ARGV: 1 config version, 2 now (ms), 3 mode ('upsert' | 'update'),
--       4 user id, 5 patch (JSON object)
-- Replies: {'STALE'} | {'NOTFOUND'} | {'OK', created, field, value, ...}
local cfg, user, stream, stats = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local ver, now, mode, id = ARGV[1], ARGV[2], ARGV[3], ARGV[4]

if config_is_stale(cfg, ver) then return {'STALE'} end
if mode == 'update' and redis.call('EXISTS', user) == 0 then return {'NOTFOUND'} end

local created, changed = apply_user_patch(user, stats, cjson.decode(ARGV[5]), now)
if created or changed then
  redis.call('XADD', stream, '*', 'k', 'us', 'u', id, 'at', now,
    'c', created and now or '', 'p', changed and ARGV[5] or '')
end
local reply = {'OK', created and '1' or '0'}
for _, v in ipairs(redis.call('HGETALL', user)) do reply[#reply + 1] = v end
return reply
