-- Shared helpers, prepended to every script by src/redis/scripts.ts.

-- Totals are decimals: round to 15 significant digits so 0.1 + 0.2 reads 0.3.
-- (A double carries 15.9 digits; the noise lives past the 15th.)
local function fmt_total(x)
  if x == 0 then return '0' end
  return string.format('%.15g', x)
end

-- Every write to a user hash goes through uset/udel, which remember it: the
-- change record then carries exactly what changed, and Postgres keeps it, so
-- Redis can be rebuilt from there (src/store/restore.ts). Numbers are stored
-- as the same text everywhere.
local CHANGED, CHANGED_N = {}, 0

-- The scripts run as one Redis Functions library whose locals outlive a
-- call: each function starts by clearing the per-call state.
local function begin_call()
  CHANGED, CHANGED_N = {}, 0
end

-- Programs (compiled config, see src/domain/points.ts) are decoded once per
-- distinct text, not once per event: the library keeps them between calls.
-- They are never modified. The cache is dropped whole when it grows large.
local PROGRAMS, PROGRAMS_N = {}, 0
local function program(text)
  local p = PROGRAMS[text]
  if p == nil then
    if PROGRAMS_N >= 256 then PROGRAMS, PROGRAMS_N = {}, 0 end
    p = cjson.decode(text)
    PROGRAMS[text] = p
    PROGRAMS_N = PROGRAMS_N + 1
  end
  return p
end
local function uset(user_key, field, value)
  if type(value) == 'number' then value = fmt_total(value) end
  redis.call('HSET', user_key, field, value)
  if CHANGED[field] == nil then CHANGED_N = CHANGED_N + 1 end
  CHANGED[field] = value
end
local function udel(user_key, field)
  redis.call('HDEL', user_key, field)
  if CHANGED[field] == nil then CHANGED_N = CHANGED_N + 1 end
  CHANGED[field] = false
end
-- The changed fields as JSON (false: deleted).
local function changed_json()
  if CHANGED_N == 0 then return '{}' end
  return cjson.encode(CHANGED)
end

-- The caller validated its input against config version ARGV[ver_index];
-- if the tenant's published config has moved on, it must reload and retry.
local function config_is_stale(cfg_key, ver)
  return redis.call('HGET', cfg_key, 'ver') ~= ver
end

-- Apply a profile patch (field -> value, as built by src/domain/users.ts) to a
-- user hash. Returns created (bool) and changed (bool).
local function apply_user_patch(user_key, stats_key, patch, now)
  local created = redis.call('HEXISTS', user_key, 'c') == 0
  if created then
    uset(user_key, 'c', now)
    redis.call('HINCRBY', stats_key, 'users', 1)
  end
  local changed = false
  for f, v in pairs(patch) do
    if redis.call('HGET', user_key, f) ~= v then
      uset(user_key, f, v)
      changed = true
    end
  end
  if created or changed then uset(user_key, 'u', now) end
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
