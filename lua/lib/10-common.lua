-- Shared helpers, prepended to every script by src/redis/scripts.ts.

-- Totals are decimals: round to 15 significant digits so 0.1 + 0.2 reads 0.3.
-- (A double carries 15.9 digits; the noise lives past the 15th.)
local function fmt_total(x)
  if x == 0 then return '0' end
  return string.format('%.15g', x)
end

-- The caller validated its input against config version ARGV[ver_index];
-- if the tenant's published config has moved on, it must reload and retry.
local function config_is_stale(cfg_key, ver)
  return redis.call('HGET', cfg_key, 'ver') ~= ver
end

-- Apply a profile patch (field -> value, as built by src/domain/users.ts) to a
-- user hash. Returns created (bool) and changed (bool).
local function apply_user_patch(user_key, stats_key, patch, now)
  local created = redis.call('HSETNX', user_key, 'c', now) == 1
  if created then redis.call('HINCRBY', stats_key, 'users', 1) end
  local changed = false
  for f, v in pairs(patch) do
    if redis.call('HGET', user_key, f) ~= v then
      redis.call('HSET', user_key, f, v)
      changed = true
    end
  end
  if created or changed then redis.call('HSET', user_key, 'u', now) end
  return created, changed
end

-- The zone a user's dates are computed in (stored tz, else UTC), when it is
-- not the one the caller assumed; nil when the caller was right.
local function zone_mismatch(user_key, zone)
  local z = redis.call('HGET', user_key, 'tz')
  if not z or z == '' then z = 'UTC' end
  if z ~= zone then return z end
  return nil
end
