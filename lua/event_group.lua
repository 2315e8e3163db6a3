-- TypeScript face: EventGroups in src/engine/group-commit.ts (through Engine.fcallEvents).
-- Group commit: several events of one tenant, each exactly as lua/event.lua
-- would apply it alone, in the order given, in one call.
-- KEYS: each event's keys (lua/event.lua's), back to back.
-- ARGV: 1 number of events, 2 keys per event, 3 arguments per event, then
--       each event's arguments, back to back.
-- Reply: one entry per event: its event.lua reply, or an error reply when its
-- script failed (that event alone; the events before and after it stand,
-- and a failing script validates before it writes).
redis.register_function('EVENT_GROUP_FUNCTION', function(KEYS, ARGV)
  local NK, NA = tonumber(ARGV[2]), tonumber(ARGV[3])
  local out = {}
  for i = 1, tonumber(ARGV[1]) do
    local keys, args = {}, {}
    local k0, a0 = (i - 1) * NK, 3 + (i - 1) * NA
    for j = 1, NK do keys[j] = KEYS[k0 + j] end
    for j = 1, NA do args[j] = ARGV[a0 + j] end
    local ok, reply = pcall(SCRIPT.event, keys, args)
    if ok then
      out[i] = reply
    else
      out[i] = { err = type(reply) == 'table' and reply.err or tostring(reply) }
    end
  end
  return out
end)
