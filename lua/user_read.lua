-- TypeScript face: userReadCall in src/engine/calls/user-read.ts (KEYS/ARGV built there in this order).
-- Read a user's hash, checked against the config version the caller holds,
-- and say whether Postgres may lack some of the user's changes yet.
-- KEYS: 1 config, 2 user, 3 change stream.  ARGV: 1 config version
-- Replies: {'STALE'} | {'OK', unflushed (see unflushed()), field, value, ...} (no fields: unknown user)
if config_is_stale(KEYS[1], ARGV[1]) then return {'STALE'} end
local reply = {'OK', unflushed(KEYS[2], KEYS[3])}
for f, v in pairs(user_view(KEYS[2])) do
  reply[#reply + 1] = f
  reply[#reply + 1] = v
end
return reply
