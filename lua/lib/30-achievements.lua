-- Achievements: completed inside the same call as the event (or API call)
-- that earns them. A completion is the user hash field a<slot> (when) and one
-- more in the tenant's counter ac<slot>; it fires the points triggers tied to
-- the achievement, and may in turn complete composites.

local function ach_done(P, k)
  return P.writes[fname(ACHIEVED_PREFIX, k)] ~= nil or uget(P.user, fname(ACHIEVED_PREFIX, k)) ~= false
end

local function ach_complete(P, a, now)
  P.writes[fname(ACHIEVED_PREFIX, a.k)] = now
  P.done[#P.done + 1] = { i = a.i, k = a.k }
  local apt = P.prog.apt[fname('', a.k)] or EMPTY
  for i = 1, #apt do
    local t = apt[i]
    if pts_filters_ok(P, t.ua, false) then pts_grant(P, t, t.p) end
  end
end

-- Composites whose last prerequisite just completed; repeated, since one
-- composite may be another's prerequisite.
local function ach_composites(P, now)
  local again = true
  while again do
    again = false
    local ac = P.prog.ac
    for i = 1, #ac do
      local a = ac[i]
      if not ach_done(P, a.k) and pts_filters_ok(P, a.ua, false) then
        local all = true
        local pre = a.pre
        for j = 1, #pre do
          local k = pre[j]
          if k < 0 or not ach_done(P, k) then all = false break end
        end
        if all then
          ach_complete(P, a, now)
          again = true
        end
      end
    end
  end
end

-- Metric achievements reached by `total` (nil: each against its own metric's
-- total, as a review does), then composites.
local function ach_metric(P, total, now)
  local am = P.prog.am
  for i = 1, #am do
    local a = am[i]
    local v = total
    if v == nil then v = tonumber(uget(P.user, fname(TOTAL_PREFIX, a.ms)) or '0') end
    if v >= a.v and not ach_done(P, a.k) and pts_filters_ok(P, a.ua, false) and pts_filters_ok(P, a.ea, true) then
      ach_complete(P, a, now)
    end
  end
  ach_composites(P, now)
end

-- Count the completions; returns them as JSON ('[]' when none).
local function ach_commit(P, stats)
  if #P.done == 0 then return '[]' end
  local done = P.done
  for i = 1, #done do
    local d = done[i]
    redis.call('HINCRBY', stats, fname(COMPLETIONS_PREFIX, d.k), '1')
  end
  return cjson.encode(P.done)
end

-- After a streak changed: streak points triggers (each multiple of their
-- length, on extension only) and streak achievements (length reached).
local function stk_consequences(P, len, extended, now)
  if extended then
    local sts = P.prog.st
    for i = 1, #sts do
      local t = sts[i]
      if len % t.len == 0 and pts_filters_ok(P, t.ua, false) then pts_grant(P, t, t.p) end
    end
  end
  local as = P.prog.as
  for i = 1, #as do
    local a = as[i]
    if len >= a.len and not ach_done(P, a.k) and pts_filters_ok(P, a.ua, false) then ach_complete(P, a, now) end
  end
end
