-- Points: triggers fire, boosts multiply positive awards, caps clip them.
-- Evaluation only reads; pts_commit writes. So an event blocked by
-- blockIfOutOfPoints leaves no trace at all.

-- P carries one evaluation: the user hash, the profile patch being applied,
-- the event's attributes, the user's local date, the program (see
-- src/domain/points.ts buildProgram) and the user's own boosts.
local function pts_new(user_key, patch, event_attrs, date, prog, user_boosts)
  return { user = user_key, patch = patch, ea = event_attrs or EMPTY, date = date, prog = prog,
    ub = user_boosts, sys = {}, order = {}, writes = {}, done = {}, blocked = nil, slots = {} }
end

-- A user attribute as it will be once the patch is applied.
local function pts_user_attr(P, k)
  local v = P.patch[ATTRIBUTE_PREFIX .. k]
  if v == nil then v = uget(P.user, ATTRIBUTE_PREFIX .. k) end
  return v
end

local function pts_filters_ok(P, filters, from_event)
  for i = 1, #filters do
    local f = filters[i]
    local v
    if from_event then v = P.ea[f[1]] else v = pts_user_attr(P, f[1]) end
    if v ~= f[2] then return false end
  end
  return true
end

local function pts_state(P, s)
  local st = P.sys[s]
  if not st then
    local b = tonumber(uget(P.user, fname(POINTS_PREFIX, s)) or '0')
    st = { b = b, a = b, aw = {} }
    P.sys[s] = st
    P.order[#P.order + 1] = s
  end
  return st
end

-- Round a boosted amount; the epsilon absorbs float noise (10 * 1.1).
local function pts_round(x, mode)
  if mode == 'up' then return math.ceil(x - 1e-9) end
  if mode == 'nearest' then return math.floor(x + 0.5) end
  return math.floor(x + 1e-9)
end

-- Active boosts of system s for this user on its local date: their product,
-- their ids, and the rounding (down if any says down, else nearest if any
-- says nearest, else up: several boosts never round in the user's favour
-- more than one would).
local function pts_boost(P, s)
  local m, ids, rounding = 1, {}, nil
  for l = 1, 2 do
    local list = l == 1 and P.prog.bo or P.ub
    for i = 1, #list do
      local b = list[i]
      if b.s == s and b.st <= P.date and (b.en == '' or P.date <= b.en) and pts_filters_ok(P, b.ua, false) then
        m = m * b.m
        ids[#ids + 1] = b.i
        if rounding == nil or b.r == 'down' or (b.r == 'nearest' and rounding == 'up') then rounding = b.r end
      end
    end
  end
  return m, ids, rounding or 'down'
end

-- Fire trigger t for `amount` points. False when it would take the total
-- below zero and the trigger blocks that.
local function pts_grant(P, t, amount)
  local st = pts_state(P, t.s)
  local boosts = EMPTY -- encoded as {} in the change record, as before
  if amount > 0 then
    local m, ids, rounding = pts_boost(P, t.s)
    if m ~= 1 then
      amount = pts_round(amount * m, rounding)
      boosts = ids
    end
    local max = P.prog.max[fname('', t.s)]
    if max and st.a + amount > max then amount = math.max(0, max - st.a) end
  elseif t.b == 1 and st.a + amount < 0 then
    P.blocked = t.s
    return false
  end
  if amount == 0 then return true end
  st.a = st.a + amount
  st.aw[#st.aw + 1] = { t = t.i, v = t.v, si = t.si, a = amount, tot = st.a, bo = boosts }
  -- The trigger's slot beside each award, for the recent list (not in the change record).
  local slots = P.slots[t.s]
  if not slots then
    slots = {}
    P.slots[t.s] = slots
  end
  slots[#st.aw] = t.k
  return true
end

-- Metric triggers: one award per new multiple of the threshold, measured
-- against a high-water mark so a falling total never deducts and climbing
-- back over a multiple never pays twice.
local function pts_metric(P, prev, new)
  local mt = P.prog.mt
  for i = 1, #mt do
    local t = mt[i]
    if pts_filters_ok(P, t.ua, false) and pts_filters_ok(P, t.ea, true) then
      local f = fname(HIGH_WATER_PREFIX, t.k)
      local hw = uget(P.user, f)
      hw = hw and tonumber(hw) or math.max(0, math.floor(prev / t.th))
      local n = math.floor(new / t.th)
      if n > hw then
        if not pts_grant(P, t, (n - hw) * t.p) then return false end
        hw = n
      end
      P.writes[f] = hw
    end
  end
  return true
end

-- Triggers that fire once when the user is first seen.
local function pts_created(P)
  local uc = P.prog.uc
  for i = 1, #uc do
    local t = uc[i]
    if pts_filters_ok(P, t.ua, false) and not pts_grant(P, t, t.p) then return false end
  end
  return true
end

-- Time triggers: one award per interval elapsed since the later of the
-- user's creation and the trigger's activation. The count granted so far is
-- kept with the activation it counts from, so a re-activated trigger starts
-- over and no interval is ever granted twice. Returns when next due (ms).
local function pts_time(P, created, now)
  local next_due = nil
  local tt = P.prog.tt
  for i = 1, #tt do
    local t = tt[i]
    local anchor = math.max(created, t.act)
    local n = math.max(0, math.floor((now - anchor) / t.iv))
    local f = fname(TIME_GRANTS_PREFIX, t.k)
    local granted = 0
    local stored = uget(P.user, f)
    if stored then
      local act, count = string.match(stored, '^(%d+):(%d+)$')
      if tonumber(act) == t.act then granted = tonumber(count) end
    end
    if n > granted then
      if pts_filters_ok(P, t.ua, false) then
        -- Back pay after a long outage is bounded per call.
        for _ = 1, math.min(n - granted, 1000) do pts_grant(P, t, t.p) end
      end
      P.writes[f] = string.format('%d:%d', t.act, n)
      granted = n
    end
    local due = anchor + (granted + 1) * t.iv
    if not next_due or due < next_due then next_due = due end
  end
  return next_due
end

-- Write totals and counters; returns the changes as JSON ('{}' if none).
local function pts_commit(P)
  for f, v in pairs(P.writes) do uset(P.user, f, v) end
  local out, any = {}, false
  local order = P.order
  for i = 1, #order do
    local s = order[i]
    local st = P.sys[s]
    if #st.aw > 0 then
      uset(P.user, fname(POINTS_PREFIX, s), st.a)
      out[fname('', s)] = st
      any = true
    end
  end
  if not any then return '{}' end
  return cjson.encode(out)
end

-- Keep the awards of this call in the user's recent lists (lua/lib/12-recent.lua),
-- one list per system: 'op,at,index,trigger slot,version tag,awarded,total'
-- and, for a boosted award, ',local date,boost id prefixes joined by .'
-- (src/domain/recent-history.ts decodes it). `op` is the operation id
-- the award ids derive from, `now` its time (ms, as text).
local function pts_recent(P, rkey, op, now)
  local oid = string.gsub(op, '-', '')
  local order = P.order
  for i = 1, #order do
    local s = order[i]
    local st = P.sys[s]
    local aw = st.aw
    if #aw > 0 then
      local slots, entries = P.slots[s], {}
      -- Newest first: the last award of the call is the latest (Postgres orders them by seq).
      for j = #aw, 1, -1 do
        local a = aw[j]
        local e = oid .. ',' .. now .. ',' .. INT[j - 1] .. ',' .. INT[slots[j]] .. ',' .. string.sub(a.v or '', 1, 8)
          .. ',' .. recent_num(a.a) .. ',' .. recent_num(a.tot)
        if #a.bo > 0 then
          local bs = {}
          for b = 1, #a.bo do bs[b] = string.sub(a.bo[b], 1, 8) end
          e = e .. ',' .. P.date .. ',' .. table.concat(bs, '.')
        end
        entries[#entries + 1] = e
      end
      recent_push(rkey, fname(RECENT_AWARDS_PREFIX, s), '', entries)
    end
  end
end
