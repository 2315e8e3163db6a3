-- Replays the FCALLs of a recorded run (bench/script.ts with BENCH_MONITOR)
-- against the Functions library under a stock Lua 5.1, with Redis mocked in
-- Lua: to check that a change to lua/ keeps every reply and the final data
-- (compare OUT.replies and OUT.state of two versions), and to see where an
-- event's Lua instructions go (profile: VM instructions per line and per
-- function, library and redis.call calls per site). See bench/README.md.
-- usage: lua5.1 bench/lua-replay.lua LIBRARY.lua MONITOR.txt OUT [profile]
-- (apt-get install lua5.1 lua-cjson; LIBRARY.lua: librarySource().code)
local LIBFILE, MONFILE, OUT, MODE = arg[1], arg[2], arg[3], arg[4]
cjson = require('cjson')
JENC = cjson.encode

-- The client FCALLs of a MONITOR log (and its one direct HSET), in order:
-- { function name, keys, args }.
local function monitor_calls(file)
  local ESC = { n = '\n', r = '\r', t = '\t', a = '\a', b = '\b', ['"'] = '"', ['\\'] = '\\' }
  local calls = {}
  for line in io.lines(file) do
    if not string.find(line, '[0 lua]', 1, true) then
      local a = {}
      local i, n = (string.find(line, '] ', 1, true) or #line) + 2, #line
      while i <= n do
        if string.sub(line, i, i) == '"' then
          local buf, j = {}, i + 1
          while string.sub(line, j, j) ~= '"' do
            local c = string.sub(line, j, j)
            if c == '\\' then
              local e = string.sub(line, j + 1, j + 1)
              if e == 'x' then
                buf[#buf + 1] = string.char(tonumber(string.sub(line, j + 2, j + 3), 16))
                j = j + 4
              else
                buf[#buf + 1] = ESC[e]
                j = j + 2
              end
            else
              buf[#buf + 1] = c
              j = j + 1
            end
          end
          a[#a + 1] = table.concat(buf)
          i = j + 1
        else
          i = i + 1
        end
      end
      local cmd = a[1] and string.upper(a[1])
      if cmd == 'FCALL' then
        local nk = tonumber(a[3])
        local keys, args = {}, {}
        for k = 4, 3 + nk do keys[#keys + 1] = a[k] end
        for k = 4 + nk, #a do args[#args + 1] = a[k] end
        calls[#calls + 1] = { (string.gsub(string.gsub(a[2], '^laurel_', ''), '_[0-9a-f]+$', '')), keys, args }
      elseif cmd == 'HSET' then
        local args = {}
        for k = 2, #a do args[#args + 1] = a[k] end
        calls[#calls + 1] = { '@HSET', {}, args }
      end
    end
  end
  return calls
end

-- ---------------------------------------------------------------- mock store
local DB = {}
local function get(key, t)
  local e = DB[key]
  if e == nil then return nil end
  if e.t ~= t then error('WRONGTYPE ' .. key) end
  return e
end
local function make(key, t)
  local e = DB[key]
  if e == nil then
    e = { t = t }
    if t == 'hash' or t == 'set' or t == 'zset' then e.v = {} ; e.n = 0 end
    if t == 'hash' or t == 'zset' then e.order = {} end
    if t == 'stream' then e.ids = {}; e.entries = {} end
    DB[key] = e
  elseif e.t ~= t then error('WRONGTYPE ' .. key) end
  return e
end
local function drop_if_empty(key)
  local e = DB[key]
  if e and e.n == 0 then DB[key] = nil end
end
-- HDEL, SREM, ZREM: take members (fields) out of a hash, set or zset; how many
-- were there. `gone(e, m)` is told each one taken out.
local function remove_members(key, t, members, gone)
  local e = get(key, t)
  if not e then return 0 end
  local n = 0
  for _, m in ipairs(members) do
    if e.v[m] ~= nil then
      e.v[m] = nil
      e.n = e.n - 1
      n = n + 1
      if gone then gone(e, m) end
    end
  end
  drop_if_empty(key)
  return n
end
local STREAM_SEQ = 0
local function numarg(s)
  local n = tonumber(s)
  if n == nil then error('ERR value is not a valid float') end
  return n
end
local function fmt_score(x)
  -- Redis replies scores as %.17g shortest-ish text; good enough for the harness
  if x == math.floor(x) and math.abs(x) < 1e17 then return string.format('%d', x) end
  return string.format('%.17g', x)
end
local function zless(a, sa, b, sb) -- a before b in ascending order
  if sa ~= sb then return sa < sb end
  return a < b
end
local function zrank_of(e, m) -- ascending rank
  local s = e.v[m]
  local r = 0
  for o, so in pairs(e.v) do
    if o ~= m and zless(o, so, m, s) then r = r + 1 end
  end
  return r
end
local function zsorted(e)
  local arr = {}
  for m in pairs(e.v) do arr[#arr + 1] = m end
  table.sort(arr, function(a, b) return zless(a, e.v[a], b, e.v[b]) end)
  return arr
end

local C = {}
C.HGETALL = function(k)
  local e = get(k, 'hash')
  local out = {}
  if not e then return out end
  for _, f in ipairs(e.order) do
    out[#out + 1] = f
    out[#out + 1] = e.v[f]
  end
  return out
end
local function hash_set(e, f, v)
  if e.v[f] == nil then
    e.n = e.n + 1
    e.order[#e.order + 1] = f
    e.v[f] = v
    return 1
  end
  e.v[f] = v
  return 0
end
C.HGET = function(k, f)
  local e = get(k, 'hash')
  if not e then return false end
  local v = e.v[f]
  if v == nil then return false end
  return v
end
C.HSET = function(k, ...)
  local a = { ... }
  if #a == 0 or #a % 2 ~= 0 then error('ERR wrong number of arguments for HSET') end
  local e = make(k, 'hash')
  local added = 0
  for i = 1, #a, 2 do added = added + hash_set(e, a[i], a[i + 1]) end
  return added
end
C.HDEL = function(k, ...)
  return remove_members(k, 'hash', { ... }, function(e, f)
    for i, o in ipairs(e.order) do if o == f then table.remove(e.order, i) break end end
  end)
end
C.HINCRBY = function(k, f, by)
  local e = make(k, 'hash')
  local cur = tonumber(e.v[f] or '0')
  local v = cur + numarg(by)
  hash_set(e, f, string.format('%d', v))
  return v
end
C.SADD = function(k, ...)
  local e = make(k, 'set')
  local n = 0
  for _, m in ipairs({ ... }) do
    if not e.v[m] then e.v[m] = true; e.n = e.n + 1; n = n + 1 end
  end
  return n
end
C.SREM = function(k, ...) return remove_members(k, 'set', { ... }) end
C.SISMEMBER = function(k, m)
  local e = get(k, 'set')
  return (e and e.v[m]) and 1 or 0
end
C.GET = function(k)
  local e = get(k, 'string')
  return e and e.v or false
end
C.SET = function(k, v)
  DB[k] = { t = 'string', v = v }
  return { ok = 'OK' }
end
C.DEL = function(...)
  local n = 0
  for _, k in ipairs({ ... }) do if DB[k] then DB[k] = nil; n = n + 1 end end
  return n
end
C.EXISTS = function(...)
  local n = 0
  for _, k in ipairs({ ... }) do if DB[k] then n = n + 1 end end
  return n
end
C.XADD = function(k, id, ...)
  if id ~= '*' then error('harness: XADD id ' .. id) end
  local e = make(k, 'stream')
  STREAM_SEQ = STREAM_SEQ + 1
  local nid = string.format('%d-0', 1700000000000 + STREAM_SEQ)
  e.ids[#e.ids + 1] = nid
  e.entries[nid] = { ... }
  return nid
end
C.XLEN = function(k)
  local e = get(k, 'stream')
  return e and #e.ids or 0
end
C.XRANGE = function(k, lo, hi, count, n)
  if lo ~= '-' or hi ~= '+' then error('harness: XRANGE range') end
  local e = get(k, 'stream')
  local out = {}
  if not e then return out end
  local lim = count and tonumber(n) or #e.ids
  for i = 1, math.min(lim, #e.ids) do
    out[i] = { e.ids[i], e.entries[e.ids[i]] }
  end
  return out
end
C.ZADD = function(k, ...)
  local a = { ... }
  local i = 1
  local nx, xx, gt, lt, ch = false, false, false, false, false
  while true do
    local f = type(a[i]) == 'string' and string.upper(a[i]) or nil
    if f == 'NX' then nx = true elseif f == 'XX' then xx = true elseif f == 'GT' then gt = true
    elseif f == 'LT' then lt = true elseif f == 'CH' then ch = true else break end
    i = i + 1
  end
  local e = make(k, 'zset')
  local n = 0
  for j = i, #a, 2 do
    local s, m = numarg(a[j]), a[j + 1]
    local cur = e.v[m]
    if cur == nil then
      if not xx then e.v[m] = s; e.n = e.n + 1; n = n + 1 end
    elseif not nx then
      if (not gt or s > cur) and (not lt or s < cur) then
        if s ~= cur and ch then n = n + 1 end
        e.v[m] = s
      end
    end
  end
  drop_if_empty(k)
  return n
end
C.ZSCORE = function(k, m)
  local e = get(k, 'zset')
  if not e or e.v[m] == nil then return false end
  return fmt_score(e.v[m])
end
C.ZCARD = function(k)
  local e = get(k, 'zset')
  return e and e.n or 0
end
C.ZREVRANK = function(k, m)
  local e = get(k, 'zset')
  if not e or e.v[m] == nil then return false end
  return e.n - 1 - zrank_of(e, m)
end
C.ZREM = function(k, ...) return remove_members(k, 'zset', { ... }) end
C.ZPOPMIN = function(k, count)
  local e = get(k, 'zset')
  local out = {}
  if not e then return out end
  local arr = zsorted(e)
  for i = 1, math.min(tonumber(count or '1'), #arr) do
    out[#out + 1] = arr[i]
    out[#out + 1] = fmt_score(e.v[arr[i]])
    e.v[arr[i]] = nil
    e.n = e.n - 1
  end
  drop_if_empty(k)
  return out
end
local function zrange(k, a, b, rev, ws)
  local e = get(k, 'zset')
  local out = {}
  if not e then return out end
  local arr = zsorted(e)
  if rev then
    local r = {}
    for i = #arr, 1, -1 do r[#r + 1] = arr[i] end
    arr = r
  end
  local n = #arr
  a, b = tonumber(a), tonumber(b)
  if a < 0 then a = n + a end
  if b < 0 then b = n + b end
  if a < 0 then a = 0 end
  if b >= n then b = n - 1 end
  for i = a, b do
    out[#out + 1] = arr[i + 1]
    if ws then out[#out + 1] = fmt_score(e.v[arr[i + 1]]) end
  end
  return out
end
C.ZRANGE = function(k, a, b, ws) return zrange(k, a, b, false, ws ~= nil) end
C.ZREVRANGE = function(k, a, b, ws) return zrange(k, a, b, true, ws ~= nil) end

-- Redis converts Lua arguments: numbers with %.17g, strings as they are.
local function conv_args(...)
  local n = select('#', ...)
  local a = { ... }
  for i = 1, n do
    local v = a[i]
    if type(v) == 'number' then
      a[i] = string.format('%.17g', v)
    elseif type(v) ~= 'string' then
      error('Lua redis lib command arguments must be strings or integers')
    end
  end
  return a, n
end

local CALLS_BY_CMD, CALLS_BY_LINE = {}, {}
local PROFILING = false
local function count_call(kind, name)
  if not PROFILING then return end
  PROFILING = false
  local info = debug.getinfo(3, 'Sl')
  if info.source == '=lib' or info.source == '=(tail call)' then
    CALLS_BY_CMD[name] = (CALLS_BY_CMD[name] or 0) + 1
    local key = kind .. ' ' .. name .. ' @' .. (info.source == '=lib' and info.currentline or 'tail')
    CALLS_BY_LINE[key] = (CALLS_BY_LINE[key] or 0) + 1
  end
  PROFILING = true
end

local function rcall(cmd, ...)
  local a, n = conv_args(...)
  local name = string.upper(cmd)
  local f = C[name]
  if not f then error('harness: unknown command ' .. cmd) end
  count_call('redis', name)
  return f(unpack(a, 1, n))
end

local FUNCS = {}
redis = {
  call = rcall,
  pcall = function(...)
    local ok, r = pcall(rcall, ...)
    if ok then return r end
    return { err = tostring(r) }
  end,
  register_function = function(name, f)
    FUNCS[(string.gsub(string.gsub(name, '^laurel_', ''), '_[0-9a-f]+$', ''))] = f
  end,
  error_reply = function(s) return { err = s } end,
  status_reply = function(s) return { ok = s } end,
  sha1hex = function(s) error('harness: sha1hex not mocked') end,
}

-- ------------------------------------------------ C function call counting
local CBYTES = {}
local function wrap(tbl, name, label, bytes)
  local orig = tbl[name]
  tbl[name] = function(...)
    count_call('C', label)
    if PROFILING and bytes then
      PROFILING = false
      local r = orig(...)
      PROFILING = true
      local s = bytes == 'in' and select(1, ...) or r
      if type(s) == 'string' then CBYTES[label] = (CBYTES[label] or 0) + #s end
      return r
    end
    return orig(...)
  end
end
-- The functions `names` of a library (a global table's name; '_G': the base
-- functions), counted as 'lib.name'; `bytes[name]` counts the bytes in or out.
local function wrap_lib(lib, names, bytes)
  for _, name in ipairs(names) do
    wrap(_G[lib], name, lib == '_G' and name or lib .. '.' .. name, bytes and bytes[name])
  end
end
if MODE == 'profile' then
  wrap_lib('string', { 'format', 'match', 'gmatch', 'sub' })
  wrap_lib('table', { 'concat', 'sort' })
  wrap_lib('math', { 'floor', 'max', 'min' })
  wrap_lib('cjson', { 'encode', 'decode' }, { encode = 'out', decode = 'in' })
  wrap_lib('_G', { 'tonumber', 'tostring', 'unpack', 'pairs', 'ipairs', 'type', 'pcall' })
end

-- ---------------------------------------------------------------- load lib
local src = assert(io.open(LIBFILE)):read('*a')
src = string.gsub(src, '^#![^\n]*', '')
local chunk = assert(loadstring(src, '=lib'))
-- As Redis does: while the library loads, its globals are only `redis`; at call time, the usual ones.
local ENV_MT = { __index = function(_, k)
  if k == 'redis' then return redis end
  error("Script attempted to access nonexistent global variable '" .. tostring(k) .. "'")
end }
local ENV = setmetatable({}, ENV_MT)
setfenv(chunk, ENV)
chunk()
ENV_MT.__index = _G

-- reply to canonical text (as Redis would convert it)
local function canon(r)
  local t = type(r)
  if t == 'string' then return JENC(r) end
  if t == 'number' then return string.format('%d', r >= 0 and math.floor(r) or -math.floor(-r)) end
  if t == 'boolean' then return r and '1' or 'nil' end
  if t == 'nil' then return 'nil' end
  if t == 'table' then
    if r.err then return 'ERR(' .. tostring(r.err) .. ')' end
    if r.ok then return 'OK(' .. tostring(r.ok) .. ')' end
    local parts = {}
    local i = 1
    while r[i] ~= nil do parts[#parts + 1] = canon(r[i]); i = i + 1 end
    return '[' .. table.concat(parts, ',') .. ']'
  end
  return '?' .. t
end

-- ---------------------------------------------------------------- profiler
local OPS_LINE, OPS_FN = {}, {}
local getinfo = debug.getinfo
local function hook()
  local info = getinfo(2, 'Sl')
  if info.source == '=lib' then
    local l = info.currentline
    OPS_LINE[l] = (OPS_LINE[l] or 0) + 1
    local f = info.linedefined
    OPS_FN[f] = (OPS_FN[f] or 0) + 1
  end
end

local calls = monitor_calls(MONFILE)
-- The function whose calls are counted and profiled (PROFILE_FN, e.g. user_upsert; the event by default).
local PROFILED = os.getenv('PROFILE_FN') or 'event'
local replies = assert(io.open(OUT .. '.replies', 'w'))
local nevents = 0
local t0
for i, c in ipairs(calls) do
  local fn, keys, args = c[1], c[2], c[3]
  local r
  if fn == '@HSET' then
    r = C.HSET(unpack(args))
  else
    local f = FUNCS[fn] or error('no function ' .. fn)
    local profiling = fn == PROFILED and MODE == 'profile'
    if fn == PROFILED then nevents = nevents + 1; t0 = t0 or os.clock() end
    if profiling then PROFILING = true; debug.sethook(hook, '', 1) end
    local ok
    ok, r = pcall(f, keys, args)
    if profiling then debug.sethook(); PROFILING = false end
    if not ok then r = { err = type(r) == 'table' and r.err or tostring(r) } end
  end
  replies:write(fn, ' ', canon(r), '\n')
end
replies:close()
io.stderr:write(string.format('events %d, %.3f s of events\n', nevents, os.clock() - (t0 or os.clock())))

-- final state dump, sorted
local st = assert(io.open(OUT .. '.state', 'w'))
local keys = {}
for k in pairs(DB) do keys[#keys + 1] = k end
table.sort(keys)
for _, k in ipairs(keys) do
  local e = DB[k]
  local parts = {}
  if e.t == 'hash' or e.t == 'zset' then
    for f, v in pairs(e.v) do parts[#parts + 1] = f .. '=' .. tostring(v) end
  elseif e.t == 'set' then
    for f in pairs(e.v) do parts[#parts + 1] = f end
  elseif e.t == 'stream' then
    for _, id in ipairs(e.ids) do
      local fs = {}
      for i, v in ipairs(e.entries[id]) do fs[i] = JENC(v) end
      parts[#parts + 1] = id .. ' [' .. table.concat(fs, ',') .. ']'
    end
  else
    parts[1] = tostring(e.v)
  end
  if e.t ~= 'stream' then table.sort(parts) end
  st:write(k, ' ', e.t, '\n  ', table.concat(parts, '\n  '), '\n')
end
st:close()

-- A count table's entries as { key, count }, most first.
local function by_count(counts)
  local out = {}
  for k, n in pairs(counts) do out[#out + 1] = { k, n } end
  table.sort(out, function(a, b) return a[2] > b[2] end)
  return out
end

if MODE == 'profile' then
  local lines = {}
  for l in string.gmatch(src .. '\n', '([^\n]*)\n') do lines[#lines + 1] = l end
  local total = 0
  for _, n in pairs(OPS_LINE) do total = total + n end
  local p = assert(io.open(OUT .. '.profile', 'w'))
  p:write(string.format('VM instructions per event: %.0f\n\nby function (line defined):\n', total / nevents))
  -- { line, instructions }: per event, share, the line and its text.
  local function ops_row(x, width)
    p:write(string.format('%8.1f %5.1f%%  %5d  %s\n', x[2] / nevents, 100 * x[2] / total, x[1], (lines[x[1]] or ''):sub(1, width)))
  end
  for _, x in ipairs(by_count(OPS_FN)) do ops_row(x, 90) end
  p:write('\nby line:\n')
  local ls = by_count(OPS_LINE)
  for i = 1, math.min(80, #ls) do ops_row(ls[i], 110) end
  p:write('\ncalls per event by kind:\n')
  for _, x in ipairs(by_count(CALLS_BY_CMD)) do
    p:write(string.format('%8.2f  %s%s\n', x[2] / nevents, x[1], CBYTES[x[1]] and string.format('  (%.0f bytes/event)', CBYTES[x[1]] / nevents) or ''))
  end
  p:write('\ncalls per event by site:\n')
  for _, x in ipairs(by_count(CALLS_BY_LINE)) do
    local l = tonumber(string.match(x[1], '@(%d+)$'))
    p:write(string.format('%8.2f  %-40s %s\n', x[2] / nevents, x[1], l and (lines[l] or ''):sub(1, 90) or ''))
  end
  p:close()
end
