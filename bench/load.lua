-- wrk script for the bench's loads (bench/load.ts starts wrk with it).
-- Settings come from the environment, so one script serves every scenario:
--   LOAD_METHOD      GET or POST (default GET)
--   LOAD_PATH        path template; {user} -> user-N (N random in [0, LOAD_USERS)),
--                    {metric} -> lessons, words or minutes
--   LOAD_BODY        "event" sends {"user":{"id":"user-N"},"value":V}, V in 1..20
--   LOAD_USERS       number of users (default 1)
--   LOAD_API_KEY     X-API-KEY, if set
--   LOAD_IDEMPOTENT  "1": half the requests carry an Idempotency-Key, 5% of those replays
--   LOAD_TAG         makes fresh keys unique across runs
--   LOAD_THREADS     wrk's -t, to share the replay memory between threads
--   LOAD_RATE        if set, the total requests per second to pace to (see delay())

local METRICS = { "lessons", "words", "minutes" }
-- Replays resend a whole earlier request: Laurel scopes a key by user and
-- metric, so the same key on another user would be a fresh event.
local REPLAY_MEMORY = 100000

local method, parts, has_body, users, idempotent, tag
local head, tail -- constant text around the per-request parts
local used, n_used, used_cap, counter = {}, 0, 0, 0

-- The main state numbers the threads; each thread gets its number as `id`.
local threads = 0
function setup(thread)
  thread:set("id", threads)
  threads = threads + 1
end

-- The template split into literal text and placeholder names, so request()
-- only concatenates.
local function split(template)
  local out, pos = {}, 1
  while true do
    local s, e, name = template:find("{(%a+)}", pos)
    if not s then break end
    out[#out + 1] = template:sub(pos, s - 1)
    out[#out + 1] = { name }
    pos = e + 1
  end
  out[#out + 1] = template:sub(pos)
  return out
end

function init(args)
  -- Each thread is its own Lua state with its own generator.
  math.randomseed(os.time() * 1000 + (id or 0) * 7919)
  math.random(); math.random() -- the first draws after seeding are poorly mixed
  method = os.getenv("LOAD_METHOD") or "GET"
  parts = split(os.getenv("LOAD_PATH") or "/")
  has_body = os.getenv("LOAD_BODY") == "event"
  users = tonumber(os.getenv("LOAD_USERS") or "1")
  idempotent = os.getenv("LOAD_IDEMPOTENT") == "1"
  tag = (os.getenv("LOAD_TAG") or tostring(os.time())) .. "-" .. tostring(id or 0) .. "-"
  used_cap = math.floor(REPLAY_MEMORY / tonumber(os.getenv("LOAD_THREADS") or "1"))

  head = " HTTP/1.1\r\nHost: " .. wrk.headers["Host"] .. "\r\n"
  local key = os.getenv("LOAD_API_KEY")
  if key and key ~= "" then head = head .. "X-API-KEY: " .. key .. "\r\n" end
  if has_body then head = head .. "Content-Type: application/json\r\n" end
  tail = "\r\n"
end

local function path_for(user)
  local out = {}
  for i = 1, #parts do
    local p = parts[i]
    if type(p) == "string" then
      out[i] = p
    elseif p[1] == "user" then
      out[i] = user
    elseif p[1] == "metric" then
      out[i] = METRICS[math.random(3)]
    else
      out[i] = "{" .. p[1] .. "}"
    end
  end
  return table.concat(out)
end

-- A new request; a keyed one gets the next key and may be replayed later.
local function fresh(keyed)
  local user = "user-" .. math.random(0, users - 1)
  local path = path_for(user)
  local idem = ""
  if keyed then
    counter = counter + 1
    idem = "Idempotency-Key: " .. tag .. counter .. "\r\n"
  end
  local req
  if has_body then
    local body = '{"user":{"id":"' .. user .. '"},"value":' .. math.random(1, 20) .. "}"
    req = method .. " " .. path .. head .. idem .. "Content-Length: " .. #body .. "\r\n" .. tail .. body
  else
    req = method .. " " .. path .. head .. idem .. tail
  end
  if keyed and n_used < used_cap then
    n_used = n_used + 1
    used[n_used] = req
  end
  return req
end

-- Paced load (LOAD_RATE): each connection waits a random time, LOAD_CONNECTIONS /
-- LOAD_RATE seconds on average, before each request, so the connections
-- together send about LOAD_RATE a second at random moments, whatever the
-- answers' latency, as long as it stays well under that wait.
local pace_ms = nil
if os.getenv("LOAD_RATE") then
  pace_ms = 1000 * tonumber(os.getenv("LOAD_CONNECTIONS")) / tonumber(os.getenv("LOAD_RATE"))
  function delay()
    return math.floor(math.random() * 2 * pace_ms)
  end
end

function request()
  if not (idempotent and math.random() < 0.5) then return fresh(false) end
  -- Of the keyed half, 5% replay a request this thread already sent.
  if n_used > 0 and math.random() < 0.05 then return used[math.random(n_used)] end
  return fresh(true)
end

function done(summary, latency, requests)
  local e = summary.errors
  local seconds = summary.duration / 1e6
  io.write(string.format(
    'LOAD {"requests":%d,"seconds":%.3f,"rps":%.1f,"p50":%.3f,"p99":%.3f,"p999":%.3f,"errors":%d}\n',
    summary.requests, seconds, summary.requests / seconds,
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency:percentile(99.9) / 1000,
    e.connect + e.read + e.write + e.status + e.timeout))
end
