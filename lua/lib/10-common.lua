-- Shared helpers of the Functions library (loaded by src/engine/library.ts).
-- User hash field names and the other shared constants come from the
-- generated prelude (src/engine/prelude.ts), ahead of this file.

-- Integer texts ('%d'): INT[n]. Every printf from Lua costs as much as a few
-- dozen table lookups, and the same small numbers (period indexes, lengths,
-- counts) come back call after call, so their text is kept between calls and
-- a hit is a plain table read. The table starts over when it grows large.
local INT, INT_N
local INT_MT = {}
INT_MT.__index = function(t, n)
  local s = string.format('%d', n)
  -- Totals and ranks make many distinct integers: start over rather than grow.
  if INT_N >= 4096 then
    INT, INT_N = setmetatable({}, INT_MT), 0
    t = INT
  end
  t[n] = s
  INT_N = INT_N + 1
  return s
end
-- (INT is made by begin_call: while the library loads, setmetatable is not there.)

-- Totals are decimals: round to 15 significant digits so 0.1 + 0.2 reads 0.3.
-- (A double carries 15.9 digits; the noise lives past the 15th.)
-- Integers (most totals) take the integer text, far cheaper than the float printf.
-- (x % 1 == 0: an integer, without calling math.floor.)
local function fmt_total(x)
  if x % 1 == 0 and x < 1e15 and x > -1e15 then return INT[x] end
  return string.format('%.15g', x)
end
-- The number fmt_total's text reads back as (integers are their own).
local function round_total(x)
  if x % 1 == 0 and x < 1e15 and x > -1e15 then return x end
  return tonumber(string.format('%.15g', x))
end

-- Items already in JSON as one JSON array.
local function json_array(items)
  if #items == 0 then return '[]' end
  return '[' .. table.concat(items, ',') .. ']'
end

-- A field or key part like 'h5': built once per (prefix, number) and kept
-- between calls, since turning a Lua number into text goes through the slow
-- float printf every time.
local NAMES = {}
local function fname(prefix, n)
  local t = NAMES[prefix]
  if t == nil then
    t = {}
    NAMES[prefix] = t
  end
  local s = t[n]
  if s == nil then
    s = prefix .. INT[n]
    t[n] = s
  end
  return s
end

-- A call works on one user hash: read whole once (HGETALL) on first use and
-- written once when the call ends (end_call), since each redis.call costs
-- far more than a Lua table lookup. Every write goes through uset/udel,
-- which remember it: the change record then carries exactly what changed,
-- and Postgres keeps it, so Redis can be rebuilt from there
-- (src/store/restore.ts). Numbers are stored as the same text everywhere.
local UKEY, U = nil, nil
local CHANGED, CHANGED_N = {}, 0
-- The user's recent history (lua/lib/12-recent.lua), read whole on first
-- use and written once by end_call, like the user hash; RCHANGED is true
-- once it changed.
local RKEY, R, RCHANGED = nil, nil, nil
-- The id of the change record this call appended (nil: none).
local LAST_CHANGE = nil

-- The scripts run as one Redis Functions library whose locals outlive a
-- call: each function starts by clearing the per-call state.
local function begin_call()
  if INT == nil then INT, INT_N = setmetatable({}, INT_MT), 0 end
  UKEY, U = nil, nil
  CHANGED, CHANGED_N = {}, 0
  LAST_CHANGE = nil
  RKEY, R, RCHANGED = nil, nil, nil
end

-- Append the call's change record (field, value, ...) to the tenant's stream.
-- Its id is also kept in the user hash (LAST_CHANGE_FIELD) (written by end_call, outside
-- the record): a read compares it with the oldest unflushed record to know
-- whether Postgres holds everything about the user yet (ctx.durable in src/context.ts).
-- That field is not part of the durable record: a hash rebuilt from Postgres has
-- none, which reads as "all flushed", as it is.
local function append_change(stream, ...)
  LAST_CHANGE = redis.call('XADD', stream, '*', ...)
end

-- The user hash as a table (field -> value).
local function user_view(user_key)
  if UKEY ~= user_key then
    if UKEY ~= nil then error('one user hash per call') end
    U = {}
    local flat = redis.call('HGETALL', user_key)
    for i = 1, #flat, 2 do U[flat[i]] = flat[i + 1] end
    UKEY = user_key
  end
  return U
end
-- One field, false when unset (as HGET answers). uget and uset are called
-- dozens of times per event: they call user_view only when the hash is not
-- loaded yet.
local function uget(user_key, field)
  local u = U
  if UKEY ~= user_key then u = user_view(user_key) end
  return u[field] or false
end

-- Write what the call changed: one HSET, one HDEL at most (and one SET of
-- the recent history: 'field=value' lines).
local function end_call()
  if RCHANGED then
    local lines = {}
    for f, v in pairs(R) do lines[#lines + 1] = f .. '=' .. v end
    redis.call('SET', RKEY, table.concat(lines, '\n'))
  end
  if CHANGED_N == 0 and not LAST_CHANGE then return end
  local set, n, del = {}, 0, nil
  if LAST_CHANGE and UKEY then
    set[1], set[2], n = LAST_CHANGE_FIELD, LAST_CHANGE, 2
  end
  for f, v in pairs(CHANGED) do
    if v then
      set[n + 1], set[n + 2], n = f, v, n + 2
    else
      del = del or {}
      del[#del + 1] = f
    end
  end
  if n > 0 then redis.call('HSET', UKEY, unpack(set, 1, n)) end
  if del then redis.call('HDEL', UKEY, unpack(del)) end
end

-- Stream ids ('<ms>-<seq>') in order.
local function stream_id_le(a, b)
  local am, as = string.match(a, '^(%d+)-(%d+)$')
  local bm, bs = string.match(b, '^(%d+)-(%d+)$')
  am, bm = tonumber(am), tonumber(bm)
  return am < bm or (am == bm and tonumber(as) <= tonumber(bs))
end

-- Whether Postgres may still lack a change record of the call's user: the
-- id of the user's last record while the stream's oldest unflushed record is
-- not newer than it (the flusher deletes records once committed), else ''.
-- unflushed_since: the same for a given record id (false/nil: none).
local function unflushed_since(lc, stream)
  if not lc then return '' end
  local oldest = redis.call('XRANGE', stream, '-', '+', 'COUNT', 1)[1]
  if oldest and stream_id_le(oldest[1], lc) then return lc end
  return ''
end
local function unflushed(user_key, stream)
  return unflushed_since(LAST_CHANGE or uget(user_key, LAST_CHANGE_FIELD), stream)
end

-- An empty table that is only ever read (a default), never written: one
-- table for all, instead of a new one per use.
local EMPTY = {}

-- JSON that repeats from call to call (programs, the compiled config of
-- src/domain/points.ts; board lists; profile patches) is decoded once per
-- distinct text: the library keeps it between calls, so it must never be
-- modified. The cache is dropped whole when it grows large.
local PROGRAMS, PROGRAMS_N = {}, 0
local function decode_once(text)
  local p = PROGRAMS[text]
  if p == nil then
    if PROGRAMS_N >= 256 then PROGRAMS, PROGRAMS_N = {}, 0 end
    p = cjson.decode(text)
    PROGRAMS[text] = p
    PROGRAMS_N = PROGRAMS_N + 1
  end
  return p
end

-- A program named instead of sent (the event path sends it only when Redis
-- lacks it): kept in the tenant's config hash, which the next publish
-- replaces whole, and decoded once per config version (looked up without
-- building a string). nil when neither the hash nor `text` has it: the
-- caller must send it.
local NAMED = {}
local function program_ref(cfg_key, ver, ref, text)
  local t = NAMED[cfg_key]
  if t == nil or t.ver ~= ver then
    t = { ver = ver, progs = {} }
    NAMED[cfg_key] = t
  end
  local p = t.progs[ref]
  if p ~= nil then return p end
  local field = 'prog:' .. ref
  if text == '' then
    text = redis.call('HGET', cfg_key, field)
    if not text then return nil end
  else
    redis.call('HSET', cfg_key, field, text)
  end
  p = cjson.decode(text)
  t.progs[ref] = p
  return p
end
local function uset(user_key, field, value)
  if type(value) == 'number' then value = fmt_total(value) end
  local u = U
  if UKEY ~= user_key then u = user_view(user_key) end
  u[field] = value
  if CHANGED[field] == nil then CHANGED_N = CHANGED_N + 1 end
  CHANGED[field] = value
end
local function udel(user_key, field)
  user_view(user_key)[field] = nil
  if CHANGED[field] == nil then CHANGED_N = CHANGED_N + 1 end
  CHANGED[field] = false
end
-- The changed fields as a JSON array: field, value, field, value, ... (null:
-- deleted). The flusher stores it as it is, a group of the user's row
-- (src/store/user-state.ts), with no decoding.
local function changed_json()
  if CHANGED_N == 0 then return '[]' end
  local flat, n = {}, 0
  for f, v in pairs(CHANGED) do
    flat[n + 1], flat[n + 2], n = f, v or cjson.null, n + 2
  end
  return cjson.encode(flat)
end

-- The caller validated its input against config version ARGV[ver_index];
-- if the tenant's published config has moved on, it must reload and retry.
local function config_is_stale(cfg_key, ver)
  return redis.call('HGET', cfg_key, CONFIG_VERSION_FIELD) ~= ver
end

-- Apply a profile patch (field -> value, as built by src/domain/users.ts) to a
-- user hash. Returns created (bool) and changed (bool).
-- A new user is placed in the control group once, by a hash of their key
-- (tenant and user id) against the tenant's control ratio (CONTROL_RATIO_FIELD in the
-- config hash, read only then): the same user always lands the same way at
-- a given ratio, and a later change of the ratio moves nobody already seen.
local function apply_user_patch(user_key, stats_key, patch, now, cfg_key)
  local created = not uget(user_key, CREATED_FIELD)
  if created then
    uset(user_key, CREATED_FIELD, now)
    redis.call('HINCRBY', stats_key, USERS_STAT, '1')
    local ratio = tonumber(redis.call('HGET', cfg_key, CONTROL_RATIO_FIELD) or '0') or 0
    if ratio > 0 and tonumber(string.sub(redis.sha1hex(user_key), 1, 8), 16) / 4294967296 < ratio then
      uset(user_key, CONTROL_FIELD, '1')
    end
  end
  local changed = false
  for f, v in pairs(patch) do
    if uget(user_key, f) ~= v then
      uset(user_key, f, v)
      changed = true
    end
  end
  if created or changed then uset(user_key, UPDATED_FIELD, now) end
  return created, changed
end

-- The zone of a user who never sent one: the tenant's default (DEFAULT_ZONE_FIELD in the
-- config; UTC in a config compiled before tenants had one, as they all kept).
local function default_zone(cfg_key)
  return redis.call('HGET', cfg_key, DEFAULT_ZONE_FIELD) or 'UTC'
end

-- The zone a user's dates are computed in (stored tz, else the tenant's
-- default), when it is not the one the caller assumed; nil when it was.
local function zone_mismatch(cfg_key, user_key, zone)
  local z = uget(user_key, ZONE_FIELD)
  if not z or z == '' then z = default_zone(cfg_key) end
  if z ~= zone then return z end
  return nil
end
