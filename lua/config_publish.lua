-- TypeScript face: configPublishCall in src/engine/calls/small.ts (KEYS/ARGV built there in this order).
-- Replace a tenant's compiled config unless a newer version is already there,
-- and make sure the change stream has its consumer group.
-- KEYS (named as in src/redis/keys.ts): 1 config, 2 stream (changes).
-- ARGV: 1 version, 2 group, then field, value, ...
-- Replies: 1 when written, 0 when a newer or equal version was already published.
local current = redis.call('HGET', KEYS[1], CONFIG_VERSION_FIELD)
if current and tonumber(current) >= tonumber(ARGV[1]) then return 0 end
redis.call('DEL', KEYS[1])
local args = {CONFIG_VERSION_FIELD, ARGV[1]}
for i = 3, #ARGV do args[#args + 1] = ARGV[i] end
redis.call('HSET', KEYS[1], unpack(args))
-- BUSYGROUP (the group exists already) is the usual answer and is fine.
redis.pcall('XGROUP', 'CREATE', KEYS[2], ARGV[2], '0', 'MKSTREAM')
return 1
