-- bench/create: each wrk thread POSTs its share of WEFT_COUNT distinct documents, then stops.
-- make_doc must stay identical to create_doc() in bench/lib/gen.py (the ndjson half sends the
-- same documents). After its share, a connection whose next request is due sends GET /ping
-- (wrk cannot idle a connection) until the thread's POSTs are all answered.
local ffi = require("ffi")
ffi.cdef[[
typedef struct { long tv_sec; long tv_usec; } weft_timeval;
int gettimeofday(weft_timeval *tv, void *tz);
]]
local function now_us()
   local tv = ffi.new("weft_timeval")
   ffi.C.gettimeofday(tv, nil)
   return tonumber(tv.tv_sec) * 1000000 + tonumber(tv.tv_usec)
end

local WORDS = {}
for w in ([[alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november
oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu river stone
cloud maple cedar birch ember frost gale harbor island jungle kettle lantern meadow
nectar orchard pebble quartz raven saddle timber umber valley willow yarrow zephyr amber
basalt copper dune fjord glacier heron ivory jasper koala lotus]]):gmatch("%S+") do
   WORDS[#WORDS + 1] = w
end
assert(#WORDS == 64)
local function word(i) return WORDS[(i % 64) + 1] end

local function make_doc(thread, seq)
   local text = {}
   for k = 0, 39 do text[#text + 1] = word(seq * 31 + thread * 17 + k * 7) end
   return string.format('{"name":"user-%d-%d","thread":%d,"seq":%d,"email":"user%d.%d@example.org",' ..
      '"score":%d,"active":%s,"tags":["%s","%s"],"text":"%s"}',
      thread, seq, thread, seq, thread, seq, (seq * 7919) % 100000,
      (seq % 2 == 0) and "true" or "false", word(seq), word(seq + thread), table.concat(text, " "))
end

local threads = {}
local next_id = 0
function setup(thread)
   thread:set("id", next_id)
   next_id = next_id + 1
   threads[#threads + 1] = thread
end

-- globals, so that done() can read them with thread:get()
share, sent, created, failed, t_first, t_last, finished = 0, 0, 0, 0, 0, 0, false
-- the command line's -H headers (Authorization) plus Content-Type: wrk.format uses a headers
-- table given to it instead of wrk.headers, not on top of them
local function post_headers()
   local h = {}
   for k, v in pairs(wrk.headers) do h[k] = v end
   h["Content-Type"] = "application/json"
   return h
end
local ping
function init(args)
   local total = tonumber(os.getenv("WEFT_COUNT"))
   local nthreads = tonumber(os.getenv("WEFT_THREADS"))
   share = math.floor(total / nthreads) + ((id < total % nthreads) and 1 or 0)
   ping = wrk.format("GET", "/ping")
end

-- wrk calls request() once on the first thread's state before it starts, only to check the
-- request (script_verify_request), and sends nothing then: so every thread's first request is a
-- ping, and no document is lost to that call.
local first = true
function request()
   if first then
      first = false
      return ping
   end
   if sent < share then
      sent = sent + 1
      if t_first == 0 then t_first = now_us() end
      return wrk.format("POST", nil, post_headers(), make_doc(id, sent))
   end
   return ping
end

function response(status, headers, body)
   if finished then return end
   if status == 201 then created = created + 1
   elseif status ~= 200 then failed = failed + 1 end
   if created + failed >= share then
      finished = true
      t_last = now_us()
      local f = io.open(os.getenv("WEFT_DONE_DIR") .. "/" .. id, "w")
      f:write("done\n"); f:close()
      wrk.thread:stop()
   end
end

function done(summary, latency, requests)
   local c, f, first, last, unfinished = 0, 0, nil, 0, 0
   for _, t in ipairs(threads) do
      c = c + t:get("created"); f = f + t:get("failed")
      local tf, tl = t:get("t_first"), t:get("t_last")
      -- a thread stopped by the time limit has no end: count its time up to now
      if tf > 0 and tl == 0 then tl = now_us(); unfinished = unfinished + 1 end
      if tf > 0 and (first == nil or tf < first) then first = tf end
      if tl > last then last = tl end
   end
   local secs = (first and last > first) and (last - first) / 1e6 or 0
   weft_report(summary, latency, string.format("created=%d failed=%d doc_seconds=%.3f docs_per_s=%.1f unfinished_threads=%d",
      c, f, secs, secs > 0 and c / secs or 0, unfinished))
end
