-- YCSB core workload over HTTP for wrk (appended after report.lua by wrk_run).
-- Environment: YCSB_RECORDS (N), YCSB_READ_PCT (100 = workload C, 50 = workload A),
-- YCSB_PREFIX (/ycsb/usertable/), YCSB_QUERY (appended to reads, e.g. ?readMode=outdated),
-- YCSB_FIXED_PATH (nginx reference: every read goes to this one path; the key is still drawn),
-- YCSB_SEED.
-- Keys: YCSB's ZipfianGenerator (Gray et al., "Quickly generating billion-record synthetic
-- databases"), constant 0.99, over items 0..N-1, then scrambled by a fixed permutation
-- k -> (k * P + 7) mod N (P a prime not dividing N) so the hot keys are spread over the key space
-- (YCSB's ScrambledZipfianGenerator hashes with FNV-64 instead; LuaJIT has no 64-bit integers).
-- Reads: GET PREFIX user<k>; updates: PATCH PREFIX user<k> {"$set":{"fieldF":"<100 chars>"}}.
local N = tonumber(os.getenv("YCSB_RECORDS") or "100000")
local READ_PCT = tonumber(os.getenv("YCSB_READ_PCT") or "100")
local PREFIX = os.getenv("YCSB_PREFIX") or "/ycsb/usertable/"
local QUERY = os.getenv("YCSB_QUERY") or ""
local FIXED = os.getenv("YCSB_FIXED_PATH")
if FIXED == "" then FIXED = nil end
local THETA = 0.99
local zetan, alpha, eta, half_pow
local P = 1000003
local values = {}
local read_headers, update_headers
local counter = 0

local function zeta(n, theta)
   local s = 0
   for i = 1, n do s = s + 1 / (i ^ theta) end
   return s
end

local function next_key()
   local u = math.random()
   local uz = u * zetan
   local k
   if uz < 1 then k = 0
   elseif uz < 1 + half_pow then k = 1
   else k = math.floor(N * ((eta * u - eta + 1) ^ alpha)) end
   if k >= N then k = N - 1 end
   return (k * P + 7) % N
end

local CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
local function random_string(len)
   local t = {}
   for i = 1, len do
      local c = math.random(1, #CHARS)
      t[i] = CHARS:sub(c, c)
   end
   return table.concat(t)
end

-- YCSB_NODES (optional): "host:port,host:port,...": thread t sends to node t mod n (several Weft
-- nodes over one database, no load balancer in between).
local thread_no = 0
function setup(thread)
   thread_no = thread_no + 1
   thread:set("tid", thread_no)
   local nodes = os.getenv("YCSB_NODES")
   if nodes and nodes ~= "" then
      local list = {}
      for hp in string.gmatch(nodes, "[^,]+") do list[#list + 1] = hp end
      local host, port = list[((thread_no - 1) % #list) + 1]:match("([^:]+):(%d+)")
      thread.addr = wrk.lookup(host, port)[1]
   end
end

function init(args)
   math.randomseed(tonumber(os.getenv("YCSB_SEED") or "42") + 7919 * (tid or 0) + os.time())
   zetan = zeta(N, THETA)
   local zeta2 = 1 + 0.5 ^ THETA
   half_pow = 0.5 ^ THETA
   alpha = 1 / (1 - THETA)
   eta = (1 - (2 / N) ^ (1 - THETA)) / (1 - zeta2 / zetan)
   if N % P == 0 then P = 999983 end
   for i = 1, 512 do values[i] = random_string(100) end
   read_headers = {}
   update_headers = {}
   for k, v in pairs(wrk.headers) do read_headers[k] = v; update_headers[k] = v end
   update_headers["Content-Type"] = "application/json"
end

function request()
   local key = next_key()
   local path = FIXED or (PREFIX .. "user" .. key)
   if math.random(100) <= READ_PCT then
      return wrk.format("GET", FIXED or (path .. QUERY), read_headers)
   end
   counter = counter + 1
   local body = '{"$set":{"field' .. math.random(0, 9) .. '":"' .. values[math.random(1, #values)] .. '"}}'
   return wrk.format("PATCH", path, update_headers, body)
end

function done(summary, latency, requests)
   weft_report(summary, latency, string.format("p95_ms=%.3f", latency:percentile(95) / 1000))
end
