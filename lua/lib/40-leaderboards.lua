-- Leaderboards: one sorted set per board, run and breakdown group, holding
-- at most the board's participant limit. Scores pack value and an update
-- counter (see src/domain/leaderboards.ts) so equal values rank by who
-- reached them first. Repeating boards keep each user's run total in the user
-- hash (L<slot> = run:value), so a user off the board still accumulates.

-- boards: what the server computed for this event (each: k slot, i id, r run,
-- rb 'm'|'p'|'s', ms metric slot, ss system slot, rep repeating, mx limit,
-- bd breakdown attribute keys). keys: prefix of board keys, tick hash.
-- Each change also goes to the user's recent list of the board (rkey; see
-- lua/lib/12-recent.lua): 'at,local date offset,previous rank,rank,previous
-- value,value' ('' for none, as Postgres keeps them).
local function lb_update(P, boards, uid, key_prefix, ticks, metric_slot, delta, total, streak_len, rkey, now)
  local out = {}
  local offset = nil
  for i = 1, #boards do
    local b = boards[i]
    local v, d = nil, nil
    if b.rb == 'm' and b.ms == metric_slot then
      if b.rep == 1 then d = delta else v = total end
    elseif b.rb == 'p' then
      local st = P.sys[b.ss]
      if st and #st.aw > 0 then
        if b.rep == 1 then d = st.a - st.b else v = st.a end
      end
    elseif b.rb == 's' and streak_len ~= nil then
      v = streak_len
    end
    local parts, grouped = EMPTY, true
    if (v ~= nil or d ~= nil) and #b.bd > 0 then
      local bd = b.bd
      parts = {}
      for i = 1, #bd do
        local k = bd[i]
        local av = pts_user_attr(P, k)
        if not av then grouped = false break end
        parts[#parts + 1] = av
      end
    end
    if (v ~= nil or d ~= nil) and grouped then
      local group = #parts > 0 and table.concat(parts, GROUP_SEPARATOR) or ''
      local run_key = INT[b.k] .. ':' .. INT[b.r]
      local zkey = key_prefix .. run_key .. ':' .. group
      if d ~= nil then
        local f = fname(RUN_TOTAL_PREFIX, b.k)
        local acc = uget(P.user, f)
        local run, val = nil, nil
        if acc then run, val = string.match(acc, '^(-?%d+):(.+)$') end
        if tonumber(run) ~= b.r then val = '0' end
        v = tonumber(val) + d
        uset(P.user, f, INT[b.r] .. ':' .. fmt_total(v))
      end
      local iv = math.max(-MAX_VALUE, math.min(MAX_VALUE, math.floor(v + 1e-9)))
      local prev_score = redis.call('ZSCORE', zkey, uid)
      local prev_val = prev_score and math.floor(tonumber(prev_score) / TIE_BITS) or nil
      -- Unchanged values keep their place; nobody joins with nothing to show.
      if prev_val ~= iv and (prev_val ~= nil or iv > 0) then
        -- Only a member has a rank to lose (each call from Lua costs as much as a small command).
        local prev_rank = prev_score and redis.call('ZREVRANK', zkey, uid) or nil
        local tick = redis.call('HINCRBY', ticks, run_key, '1') -- text: Redis prints a number argument with the float printf
        -- An integer below 2^53: exact as '%d' text, which is also cheaper to make.
        local score = string.format('%d', iv * TIE_BITS + (TIE_BITS - 1 - (tick % TIE_BITS)))
        redis.call('ZADD', zkey, score, uid)
        local n = redis.call('ZCARD', zkey)
        local evicted = EMPTY
        if n > b.mx then
          evicted = {}
          local popped = redis.call('ZPOPMIN', zkey, n - b.mx)
          for j = 1, #popped, 2 do evicted[#evicted + 1] = popped[j] end
          n = b.mx
        end
        local rank = redis.call('ZREVRANK', zkey, uid)
        local threshold = 0
        if n >= b.mx then
          local low = redis.call('ZRANGE', zkey, 0, 0, 'WITHSCORES')
          threshold = math.floor(tonumber(low[2]) / TIE_BITS)
        end
        -- Joined by hand: cjson prints every number with the float printf, and
        -- string.format runs a printf per field.
        out[#out + 1] = '{"k":' .. INT[b.k] .. ',"i":"' .. b.i .. '","r":' .. INT[b.r] .. ',"g":'
          .. (#parts > 0 and cjson.encode(parts) or '[]') .. ',"rk":' .. INT[rank and rank + 1 or -1]
          .. ',"pr":' .. INT[prev_rank and prev_rank + 1 or -1] .. ',"pv":' .. INT[prev_val or -1]
          .. ',"th":' .. INT[threshold] .. ',"nv":' .. INT[iv] .. ',"sc":"' .. score .. '","ev":'
          .. (#evicted > 0 and cjson.encode(evicted) or '[]') .. '}'
        -- A user off the board before and after has no history entry, in Postgres either (pipeline/flush-batch.ts).
        if prev_rank or rank then
          offset = offset or day_offset(P.date, now)
          recent_push(rkey, fname(RECENT_BOARD_PREFIX, b.k), INT[b.r], { now .. ',' .. offset .. ',' .. (prev_rank and INT[prev_rank + 1] or '')
            .. ',' .. (rank and INT[rank + 1] or '') .. ',' .. (prev_rank and INT[prev_val] or '') .. ',' .. (rank and INT[iv] or '') })
        end
      end
    end
  end
  return json_array(out)
end
