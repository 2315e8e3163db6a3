-- Streaks. Periods are integer indexes on the user's own calendar, computed
-- by the server: days since 1970-01-01, weeks since the first week start on or
-- after it, months since year 0. Each frequency ('d', 'w', 'm') keeps its own
-- state in the user hash field S<f>, so switching frequency keeps working;
-- freezes and pauses apply to the active frequency only.
-- State: cur period of the sums | length | started | last extended |
--        settled through | extended at (ms) | length when last lost | sums |
--        where the lost streak had started

-- Days since 1970-01-01 of a civil date (pure integer math).
local function stk_days_from_civil(y, m, d)
  if m <= 2 then y = y - 1 end
  local era = math.floor(y / 400)
  local yoe = y - era * 400
  local mp = (m + 9) % 12
  local doy = math.floor((153 * mp + 2) / 5) + d - 1
  local doe = yoe * 365 + math.floor(yoe / 4) - math.floor(yoe / 100) + doy
  return era * 146097 + doe - 719468
end

-- First and last day of period `idx` of frequency f; wo: day of the first week start.
local function stk_days(f, idx, wo)
  if f == 'd' then return idx, idx end
  if f == 'w' then
    local s = idx * 7 + wo
    return s, s + 6
  end
  local y, m = math.floor(idx / 12), idx % 12 + 1
  local s = stk_days_from_civil(y, m, 1)
  if m == 12 then return s, stk_days_from_civil(y + 1, 1, 1) - 1 end
  return s, stk_days_from_civil(y, m + 1, 1) - 1
end

-- The packed state is read and written on every event for each frequency,
-- so both avoid the costly library calls: one match for the whole record (a
-- gmatch per field costs several times more), '+ 0' for its numbers (they
-- are ours; tonumber would parse each text twice), and the record is joined
-- from integer texts mostly cached (INT) instead of a printf per field.
-- `ext` stays text: it is only ever copied (from `now` when extended).
local function stk_load(user, f)
  local raw = uget(user, STREAK_PREFIX .. f)
  if not raw then
    return { cur = -1, len = 0, started = -1, lp = -1, settled = -1, ext = '0', lost = 0, sums = {}, ls = -1, raw = false }
  end
  local cur, len, started, lp, settled, ext, lost, sums, ls =
    string.match(raw, '^([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|?([^|]*)$')
  local st = { cur = cur + 0, len = len + 0, started = started + 0, lp = lp + 0, settled = settled + 0, ext = ext,
    lost = lost + 0, sums = {}, ls = ls ~= '' and ls + 0 or -1, raw = raw }
  if sums ~= '' then
    for k, v in string.gmatch(sums, '(%d+)=([^;]+)') do st.sums[k] = v + 0 end
  end
  return st
end

local function stk_save(user, f, st)
  local sums = ''
  for k, v in pairs(st.sums) do
    sums = (sums == '' and '' or sums .. ';') .. k .. '=' .. fmt_total(v)
  end
  local packed = INT[st.cur] .. '|' .. INT[st.len] .. '|' .. INT[st.started] .. '|' .. INT[st.lp] .. '|'
    .. INT[st.settled] .. '|' .. st.ext .. '|' .. INT[st.lost] .. '|' .. sums .. '|' .. INT[st.ls]
  -- Most events change nothing here (another metric, already extended): skip the write.
  if packed ~= st.raw then
    uset(user, STREAK_PREFIX .. f, packed)
    st.raw = packed
  end
end

-- S: one evaluation: user key, now, today (day index), config (program.sk),
-- freezes state, the user's pauses, and the period records it produced.
-- A user's own rule (streak customization: STREAK_PREF_FIELD in their hash, see
-- src/domain/streaks.ts ownStreakRule) replaces the tenant's metrics,
-- thresholds and mode for everything here (events, settling, freezes,
-- pauses); frequency and freezes stay the tenant's. Off: nothing extends it.
local function stk_rule(v, sk)
  local sp = v[STREAK_PREF_FIELD]
  if not sp then return sk end
  local own = cjson.decode(sp)
  local th = {}
  if own.on == 1 then
    for k, t in pairs(own.th) do th[k] = t end
  end
  return { act = sk.act, mode = own.mode, th = th, ini = sk.ini, ei = sk.ei, ea = sk.ea, max = sk.max, wo = sk.wo }
end

local function stk_new(user, sk, now, today)
  local v = user_view(user)
  local S = { user = user, sk = stk_rule(v, sk), now = tonumber(now), today = today, rec = {}, changed = false }
  S.fz, S.fa, S.fe = (v[FREEZES_FIELD] or 0) + 0, (v[FREEZE_ANCHOR_FIELD] or -1) + 0, (v[FREEZES_EARNED_FIELD] or 0) + 0
  local pz = v[PAUSES_FIELD]
  S.pauses = pz and cjson.decode(pz) or {}
  if S.fa < 0 then
    -- First streak evaluation for this user: initial freezes, earning starts today.
    S.fz, S.fa, S.fe, S.changed = math.min(sk.ini, sk.max), today, 0, true
  end
  return S
end

-- Credit freezes earned by the end of day `day` (never beyond the maximum).
local function stk_earn(S, day)
  local sk = S.sk
  if sk.ei <= 0 or sk.ea <= 0 then return end
  local due = math.floor((day - S.fa) / sk.ei)
  if due > S.fe then
    S.fz = math.min(sk.max, S.fz + (due - S.fe) * sk.ea)
    S.fe = due
    S.changed = true
  end
end

local function stk_paused(S, d0, d1)
  local pauses = S.pauses
  for i = 1, #pauses do
    local p = pauses[i]
    if p[1] <= d1 and p[2] >= d0 then return true end
  end
  return false
end

local function stk_record(S, f, p, len, freeze, pause)
  S.rec[#S.rec + 1] = { f = f, p = p, l = len, fr = freeze and 1 or 0, pa = pause and 1 or 0 }
end

-- Account for every period before `n` that ended without an extension:
-- a pause holds the length, else a freeze is spent, else the streak is lost.
local function stk_settle(S, f, st, n)
  if st.len > 0 then
    local p = math.max(st.lp, st.settled) + 1
    local guard = 0
    while p < n and st.len > 0 and guard < 5000 do
      guard = guard + 1
      local freeze, pause = false, false
      if S.sk.act == f then
        local d0, d1 = stk_days(f, p, S.sk.wo)
        stk_earn(S, d1)
        if stk_paused(S, d0, d1) then
          pause = true
        elseif S.fz > 0 then
          S.fz = S.fz - 1
          S.changed = true
          freeze = true
        end
      end
      if freeze or pause then
        stk_record(S, f, p, st.len, freeze, pause)
      else
        st.lost, st.ls, st.len, st.started = st.len, st.started, 0, -1
        stk_record(S, f, p, 0, false, false)
      end
      p = p + 1
    end
  end
  if n - 1 > st.settled then st.settled = n - 1 end
end

-- Count an event of metric `slot` in period n; true when it extends the streak.
local function stk_event(S, f, st, n, slot, value)
  if n < st.cur then n = st.cur end -- moved west: still the later period
  if st.cur ~= n then st.cur, st.sums = n, {} end
  local key = fname('', slot)
  if S.sk.th[key] == nil then return false end
  st.sums[key] = round_total((st.sums[key] or 0) + value)
  if st.lp >= n then return false end
  local all = S.sk.mode == 'all'
  local met = all
  for k, th in pairs(S.sk.th) do
    local ok = (st.sums[k] or 0) >= th
    if all then met = met and ok else met = met or ok end
  end
  if not met then return false end
  if st.len == 0 then st.started = n end
  if not S.now_text then S.now_text = string.format('%d', S.now) end
  st.len, st.lp, st.settled, st.ext = st.len + 1, n, n, S.now_text
  stk_record(S, f, n, st.len, false, false)
  return true
end

-- Settle (and, for an event, count) every frequency. `idx` holds the current
-- period of each. Returns the active frequency's state and whether it extended.
local STK_FREQS = { 'd', 'w', 'm' }
local function stk_run(S, idx, slot, value)
  local active, extended = nil, false
  for i = 1, #STK_FREQS do
    local f = STK_FREQS[i]
    local st = stk_load(S.user, f)
    local n = idx[f]
    if f == S.sk.act then S.hsince = math.max(st.lp, st.settled) + 1 end
    stk_settle(S, f, st, n)
    local ext = slot ~= nil and stk_event(S, f, st, n, slot, value)
    stk_save(S.user, f, st)
    if f == S.sk.act then
      active, extended = st, ext
      if S.today then stk_earn(S, S.today) end
    end
  end
  return active, extended
end

-- Recent history of the active frequency, in the user hash as 'H<f>':
-- 'since;p,l,fr,pa;...', the period records of the HISTORY_KEPT latest periods
-- (a later record of a period wins), complete from period `since` on (the
-- first period the state had not yet settled when the field was created).
-- A streak read serves its history from here when the window allows
-- (src/domain/streaks.ts recentPeriods), so it need not touch Postgres.
local function stk_history_field(f) return HISTORY_PREFIX .. f end
local function stk_history(S)
  local f = S.sk.act
  local byp, n = {}, 0
  local recs = S.rec
  for i = 1, #recs do
    local r = recs[i]
    if r.f == f then
      byp[r.p] = string.format('%d,%d,%d,%d', r.p, r.l, r.fr, r.pa)
      n = n + 1
    end
  end
  local field = stk_history_field(f)
  local raw = uget(S.user, field)
  -- Nothing to add; a user without the field gets it (empty) all the same,
  -- so their reads need not wait for a first record.
  if n == 0 and raw then return end
  local since = S.hsince
  if raw then
    local s, rest = string.match(raw, '^(-?%d+)(.*)$')
    since = s
    for e in string.gmatch(rest, ';([^;]+)') do
      local p = tonumber(string.match(e, '^(-?%d+)'))
      if byp[p] == nil then byp[p] = e end
    end
  end
  local ps = {}
  for p in pairs(byp) do ps[#ps + 1] = p end
  table.sort(ps)
  local parts = { since }
  for i = math.max(1, #ps - HISTORY_KEPT + 1), #ps do parts[#parts + 1] = byp[ps[i]] end
  uset(S.user, field, table.concat(parts, ';'))
end

local function stk_commit(S)
  stk_history(S)
  if S.changed then
    uset(S.user, FREEZES_FIELD, S.fz)
    uset(S.user, FREEZE_ANCHOR_FIELD, S.fa)
    uset(S.user, FREEZES_EARNED_FIELD, S.fe)
  end
  if #S.rec == 0 then return '[]' end
  return cjson.encode(S.rec)
end

-- What the server needs to answer: the active frequency's state.
local function stk_reply(S, st, extended)
  return '{"len":' .. INT[st.len] .. ',"started":' .. INT[st.started] .. ',"lp":' .. INT[st.lp] .. ',"ext":' .. st.ext
    .. ',"lost":' .. INT[st.lost] .. ',"x":' .. (extended and '1' or '0') .. ',"fz":' .. INT[S.fz] .. '}'
end
