-- A user's recent history, kept beside the user hash in a string of its own
-- (src/redis/keys.ts recent; 'field=value' lines, one string rather than a
-- hash so that lists longer than Redis's small-hash value limit (64 bytes)
-- cost no more than their bytes; src/domain/recent-history.ts reads it and
-- spells its field names): a user's last RECENT_KEPT points awards per
-- system ('w<system slot>') and leaderboard changes per board ('b<board
-- slot>'), so the reads a client makes right after an event need neither a
-- flush nor Postgres. Written by the call that makes the history, trimmed
-- in the same call. Not part of the durable record: Postgres keeps the same
-- history in its own tables, and src/store/restore.ts rebuilds this from there.
--
-- A list is 'header;entry;entry...', newest first. The header is a flag and,
-- for boards, the run the entries belong to:
--   'c' complete: holds every entry the user ever had there (in that run);
--   'p' partial: older entries may exist (trimmed, or the user predates the list);
--   'x' partial, and the user's runs once went backwards (a zone change):
--       a later run cannot be known complete either.
-- TRACKED_FIELD = '1' marks a user tracked since creation (or rebuilt from Postgres):
-- their lists start complete, and a missing list means no history at all.

-- The fields of a recent-history text.
local function recent_fields(text)
  local r = {}
  if text then
    for f, v in string.gmatch(text, '([^=\n]+)=([^\n]*)') do r[f] = v end
  end
  return r
end

local function recent_view(rkey)
  if RKEY ~= rkey then
    if RKEY ~= nil then error('one recent history per call') end
    R = recent_fields(redis.call('GET', rkey))
    RKEY = rkey
  end
  return R
end

local function recent_set(rkey, field, value)
  recent_view(rkey)[field] = value
  RCHANGED = true
end

-- A user created by this call: everything they do from now on is kept.
local function recent_track(rkey)
  recent_set(rkey, TRACKED_FIELD, '1')
end

-- Put `entries` (newest first) in front of list `field` for `run` ('' for
-- lists without runs), keeping the RECENT_KEPT newest.
local function recent_push(rkey, field, run, entries)
  local r = recent_view(rkey)
  local old = r[field]
  local flag, rest = nil, ''
  if old then
    local head, tail = string.match(old, '^([^;]*)(.*)$')
    local oflag, orun = string.sub(head, 1, 1), string.sub(head, 2)
    if orun == run then
      flag, rest = oflag, tail
    elseif tonumber(run) < tonumber(orun) then
      flag = 'x'
    elseif oflag == 'x' then
      flag = 'x'
    end
  end
  if flag == nil then flag = r[TRACKED_FIELD] and 'c' or 'p' end
  -- Keep at most RECENT_KEPT entries: cut `rest` before its (room + 1)th.
  local room = RECENT_KEPT - #entries
  local dropped = false
  if room <= 0 then
    dropped = room < 0 or rest ~= ''
    if room < 0 then entries = { unpack(entries, 1, RECENT_KEPT) } end
    rest = ''
  else
    local pos = 0
    for _ = 1, room + 1 do
      pos = string.find(rest, ';', pos + 1, true)
      if pos == nil then break end
    end
    if pos ~= nil then
      rest = string.sub(rest, 1, pos - 1)
      dropped = true
    end
  end
  if dropped and flag == 'c' then flag = 'p' end
  recent_set(rkey, field, flag .. run .. ';' .. table.concat(entries, ';') .. rest)
end

-- Day number of a 'YYYY-MM-DD' date (days since 1970-01-01), kept per text.
local DAYS, DAYS_N = {}, 0
local function day_of(date)
  local n = DAYS[date]
  if n == nil then
    local y, m, d = tonumber(string.sub(date, 1, 4)), tonumber(string.sub(date, 6, 7)), tonumber(string.sub(date, 9, 10))
    if m <= 2 then y = y - 1 end
    local era = math.floor(y / 400)
    local yoe = y - era * 400
    local doy = math.floor((153 * ((m + 9) % 12) + 2) / 5) + d - 1
    n = era * 146097 + yoe * 365 + math.floor(yoe / 4) - math.floor(yoe / 100) + doy - 719468
    if DAYS_N >= 64 then DAYS, DAYS_N = {}, 0 end
    DAYS[date] = n
    DAYS_N = DAYS_N + 1
  end
  return n
end

-- A local date as its offset in days from the UTC date of `now` (ms): -1, 0 or 1.
local function day_offset(date, now)
  return INT[day_of(date) - math.floor(tonumber(now) / 86400000)]
end

-- A number as the change record's JSON prints it (cjson: 14 significant
-- digits), so the list and Postgres read back the same value.
local function recent_num(x)
  if x % 1 == 0 and x < 1e15 and x > -1e15 then return INT[x] end
  return string.format('%.14g', x)
end
