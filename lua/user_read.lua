-- Read a user's hash, checked against the config version the caller holds.
-- KEYS: 1 config, 2 user.  ARGV: 1 config version
-- Replies: {'STALE'} | {'OK', field, value, ...} (no fields: unknown user)
if config_is_stale(KEYS[1], ARGV[1]) then return {'STALE'} end
local reply = {'OK'}
for _, v in ipairs(redis.call('HGETALL', KEYS[2])) do reply[#reply + 1] = v end
return reply
