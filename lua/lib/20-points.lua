-- Points: triggers fire, boosts multiply positive awards, caps clip them.
-- Evaluation only reads; pts_commit writes. So an event blocked by
-- blockIfOutOfPoints leaves no trace at all.

-- P carries one evaluation: the user hash, the profile patch being applied,
-- the event's attributes, the user's local date, the program (see
-- src/domain/points.ts buildProgram) and the user's own boosts.
local function pts_new(user_key, patch, event_attrs, date, prog, user_boosts)
  return { user = user_key, patch = patch, ea = event_attrs or EMPTY, date = date, prog = prog,
    ub = user_boosts, sys = {}, order = {}, writes = {}, done = {}, blocked = nil }
end

-- A user attribute as it will be once the patch is applied.
local function pts_user_attr(P, k)
  local v = P.patch['a:' .. k]
  if v == nil then v = uget(P.user, 'a:' .. k) end
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
    local b = tonumber(uget(P.user, fname('p', s)) or '0')
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
      local f = fname('h', t.k)
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
    local f = fname('g', t.k)
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
      uset(P.user, fname('p', s), st.a)
      out[fname('', s)] = st
      any = true
    end
  end
  if not any then return '{}' end
  return cjson.encode(out)
end
