-- bench/pages: each wrk thread sends its share of WEFT_COUNT GETs of WEFT_PATH, then stops; the
-- run's time is the first request to the last answer (as bench/create's POSTs). After its share
-- a connection whose next request is due sends GET /ping until the thread's GETs are answered.
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

local threads = {}
local next_id = 0
function setup(thread)
   thread:set("id", next_id)
   next_id = next_id + 1
   threads[#threads + 1] = thread
end

share, sent, ok, failed, t_first, t_last, finished = 0, 0, 0, 0, 0, 0, false
local ping, get
function init(args)
   local total = tonumber(os.getenv("WEFT_COUNT"))
   local nthreads = tonumber(os.getenv("WEFT_THREADS"))
   share = math.floor(total / nthreads) + ((id < total % nthreads) and 1 or 0)
   ping = wrk.format("GET", "/ping")
   get = wrk.format("GET", os.getenv("WEFT_PATH"))
end

-- wrk calls request() once on the first thread's state only to check it: the first request of
-- every thread is a ping, so no counted GET is lost to that call.
local first = true
function request()
   if first then
      first = false
      return ping
   end
   if sent < share then
      sent = sent + 1
      if t_first == 0 then t_first = now_us() end
      return get
   end
   return ping
end

function response(status, headers, body)
   -- only the pages count (a ping's answer is not a JSON array)
   if finished or t_first == 0 or body:sub(1, 1) ~= "[" then return end
   if status == 200 then ok = ok + 1 else failed = failed + 1 end
   if ok + failed >= share then
      finished = true
      t_last = now_us()
      local f = io.open(os.getenv("WEFT_DONE_DIR") .. "/" .. id, "w")
      f:write("done\n"); f:close()
      wrk.thread:stop()
   end
end

function done(summary, latency, requests)
   local o, f, first, last, unfinished = 0, 0, nil, 0, 0
   for _, t in ipairs(threads) do
      o = o + t:get("ok"); f = f + t:get("failed")
      local tf, tl = t:get("t_first"), t:get("t_last")
      if tf > 0 and tl == 0 then tl = now_us(); unfinished = unfinished + 1 end
      if tf > 0 and (first == nil or tf < first) then first = tf end
      if tl > last then last = tl end
   end
   local secs = (first and last > first) and (last - first) / 1e6 or 0
   weft_report(summary, latency, string.format("ok=%d failed=%d run_seconds=%.3f queries_per_s=%.1f unfinished_threads=%d",
      o, f, secs, secs > 0 and o / secs or 0, unfinished))
end
