-- Leagues (src/domain/leagues.ts, docs/leagues.md): at a user's first
-- scoring event of a run they join a cohort of their tier, here, inside the
-- event's own call. Keys (src/redis/keys.ts leaguePrefix): '<p><slot>' state
-- (LEAGUE_APPLIED_FIELD: last run applied to the tiers), '<p><slot>:t' settled
-- tiers, '<p><slot>:<run>' the run (RUN_OPENED_PREFIX<tier> cohorts opened,
-- RUN_ROOM_PREFIX<tier> oldest cohort that may have room, RUN_TICK_FIELD tie
-- counter, RUN_PARAMS_FIELD parameters),
-- '<p><slot>:<run>:<tier>:<no>' a cohort (packed scores as leaderboards:
-- value * 2^22 + (2^22 - 1 - tick)). A closed run's tie counter is at least
-- CLOSED_TICK_VALUE: the one HINCRBY an event makes anyway also says whether it may
-- still enter the run.
-- The user's place is the hash field LEAGUE_PREFIX<slot> = 'run,tier,cohort,value'.

-- Close a run that exists: no event enters it any more (lua/league_close.lua too).
local function lg_close(rkey)
  local t = redis.call('HGET', rkey, RUN_TICK_FIELD)
  if t and tonumber(t) < CLOSED_TICK_VALUE then redis.call('HSET', rkey, RUN_TICK_FIELD, CLOSED_TICK) end
end

-- Zone of rank k (1-based) of n in a cohort of `size`, tier params {promote, relegate}
-- (zoneOf in src/domain/leagues.ts).
local function lg_zone(k, n, size, tp)
  if k <= math.floor(tp[1] * n / size) then return 'p' end
  if k > n - math.floor(tp[2] * n / size) then return 'r' end
  return 's'
end

-- The tier a user starts a new run in. While the last run they played is
-- not applied to the tiers hash yet, its outcome is read from their cohort,
-- closed first (its boundary has passed: this event is of a later run), so
-- it reads exactly as the finalizer ranks it; else the settled tier.
local function lg_tier(base, uid, prun, ptier, pno)
  if prun ~= nil and prun > tonumber(redis.call('HGET', base, LEAGUE_APPLIED_FIELD) or '-1') then
    local rkey = base .. ':' .. INT[prun]
    lg_close(rkey)
    local cf = redis.call('HGET', rkey, RUN_PARAMS_FIELD)
    local ck = rkey .. ':' .. INT[ptier] .. ':' .. INT[pno]
    local r = redis.call('ZREVRANK', ck, uid)
    if cf and r then
      local p = decode_once(cf)
      local z = lg_zone(r + 1, redis.call('ZCARD', ck), p.sz, p.t[ptier + 1])
      if z == 'p' then return ptier + 1 end
      if z == 'r' then return ptier - 1 end
    end
    return ptier
  end
  return tonumber(redis.call('HGET', base .. ':t', uid) or '0')
end

-- leagues: what the server computed for this event (each: k slot, i id, r run,
-- rb 'm'|'p', ms metric slot, ss system slot, cf the run's parameters as JSON
-- text {sz, t: [[promote, relegate], ...]}). Returns the changes as JSON.
local function lg_update(P, leagues, uid, prefix, metric_slot, delta)
  local out = {}
  for i = 1, #leagues do
    local L = leagues[i]
    local d = nil
    if L.rb == 'm' then
      if L.ms == metric_slot then d = delta end
    else
      local st = P.sys[L.ss]
      if st and #st.aw > 0 then d = st.a - st.b end
    end
    local f = fname(LEAGUE_PREFIX, L.k)
    local g = d ~= nil and d ~= 0 and uget(P.user, f)
    local prun, ptier, pno, pval
    if g then
      local a, b, c, v = string.match(g, '^(-?%d+),(%d+),(%d+),(.+)$')
      prun, ptier, pno, pval = tonumber(a), tonumber(b), tonumber(c), tonumber(v)
    end
    local member = prun == L.r
    -- Nobody joins with nothing to show.
    if d ~= nil and d ~= 0 and (member or d > 0) then
      local base = prefix .. INT[L.k]
      local rkey = base .. ':' .. INT[L.r]
      local tick = redis.call('HINCRBY', rkey, RUN_TICK_FIELD, '1')
      if tick < CLOSED_TICK_VALUE then
        local p = decode_once(L.cf)
        local tier, no, val, ck, prev_rank, prev_iv
        if member then
          tier, no, val = ptier, pno, pval + d
          ck = rkey .. ':' .. INT[tier] .. ':' .. INT[no]
          -- The value ranked so far is the place's (the set holds its floor).
          prev_rank = redis.call('ZREVRANK', ck, uid)
          if prev_rank then prev_iv = math.max(-MAX_VALUE, math.min(MAX_VALUE, math.floor(pval + 1e-9))) end
        else
          tier = math.max(0, math.min(#p.t - 1, lg_tier(base, uid, prun, ptier, pno)))
          local tf = INT[tier]
          local h = redis.call('HMGET', rkey, RUN_OPENED_PREFIX .. tf, RUN_ROOM_PREFIX .. tf)
          local n, c0 = tonumber(h[1] or '0'), tonumber(h[2] or '1')
          local c = c0
          -- The oldest cohort with room; all run in one call, so none overfills.
          while c <= n and redis.call('ZCARD', rkey .. ':' .. tf .. ':' .. INT[c]) >= p.sz do c = c + 1 end
          if c > n then redis.call('HSET', rkey, RUN_OPENED_PREFIX .. tf, INT[c], RUN_PARAMS_FIELD, L.cf) end
          if c ~= c0 then redis.call('HSET', rkey, RUN_ROOM_PREFIX .. tf, INT[c]) end
          no, val = c, d
          ck = rkey .. ':' .. tf .. ':' .. INT[c]
        end
        val = round_total(val)
        uset(P.user, f, INT[L.r] .. ',' .. INT[tier] .. ',' .. INT[no] .. ',' .. fmt_total(val))
        local iv = math.max(-MAX_VALUE, math.min(MAX_VALUE, math.floor(val + 1e-9)))
        local score
        -- An unchanged value keeps its place (ties go to the first to reach it).
        if prev_iv ~= iv then
          score = string.format('%d', iv * TIE_BITS + (TIE_BITS - 1 - (tick % TIE_BITS)))
          redis.call('ZADD', ck, score, uid)
        else
          score = redis.call('ZSCORE', ck, uid)
        end
        local rank = redis.call('ZREVRANK', ck, uid) + 1
        local n = redis.call('ZCARD', ck)
        out[#out + 1] = '{"k":' .. INT[L.k] .. ',"i":"' .. L.i .. '","r":' .. INT[L.r] .. ',"t":' .. INT[tier] .. ',"c":' .. INT[no]
          .. ',"rk":' .. INT[rank] .. ',"pr":' .. INT[prev_rank and prev_rank + 1 or -1] .. ',"n":' .. INT[n] .. ',"v":' .. INT[iv]
          .. ',"sc":"' .. score .. '","z":"' .. lg_zone(rank, n, p.sz, p.t[tier + 1]) .. '"}'
      end
    end
  end
  return json_array(out)
end
