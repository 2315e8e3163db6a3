-- TypeScript face: userReadCall in src/engine/calls/user-read.ts (KEYS/ARGV built there in this order).
-- Read a user's hash, checked against the config version the caller holds,
-- and say whether Postgres may lack some of the user's changes yet; with a
-- list named, that list of the user's recent history too (lua/lib/12-recent.lua),
-- read in the same instant as the hash.
-- KEYS (named as in src/redis/keys.ts): 1 config, 2 user, 3 stream (changes), 4 recent (the user's recent history)
-- ARGV: 1 config version, 2 recent list field ('' for none)
-- Replies: {'STALE'} | {'OK', unflushed (see unflushed()), tracked ('1' or ''), the list ('' when none),
--          field, value, ...} (no fields: unknown user)
if config_is_stale(KEYS[1], ARGV[1]) then return {'STALE'} end
local tracked, list = '', ''
if ARGV[2] ~= '' then
  local r = recent_fields(redis.call('GET', KEYS[4]))
  tracked, list = r[TRACKED_FIELD] or '', r[ARGV[2]] or ''
end
local reply = {'OK', unflushed(KEYS[2], KEYS[3]), tracked, list}
for f, v in pairs(user_view(KEYS[2])) do
  reply[#reply + 1] = f
  reply[#reply + 1] = v
end
return reply
