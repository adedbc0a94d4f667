-- Shared by the wrk scripts that send a fixed number of requests (bench/create, bench/pages):
-- each thread sends its share, notes when its first request left (t_first) and its last answer
-- came (t_last); fixed_report sums the threads' counts and times the run from the first request
-- to the last answer.
local ffi = require("ffi")
ffi.cdef[[
typedef struct { long tv_sec; long tv_usec; } weft_timeval;
int gettimeofday(weft_timeval *tv, void *tz);
]]
function now_us()
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

-- The thread's share of WEFT_COUNT over WEFT_THREADS threads.
function thread_share()
   local total = tonumber(os.getenv("WEFT_COUNT"))
   local nthreads = tonumber(os.getenv("WEFT_THREADS"))
   return math.floor(total / nthreads) + ((id < total % nthreads) and 1 or 0)
end

-- The thread's share and the ping it sends once its share is out (call from init()).
local ping
function fixed_init()
   share = thread_share()
   ping = wrk.format("GET", "/ping")
end

-- The next request: one of the thread's share, made by counted() (after sent is counted), or a
-- ping once the share is out (wrk cannot idle a connection). wrk calls request() once on the
-- first thread's state before it starts, only to check the request (script_verify_request), and
-- sends nothing then: so every thread's first request is a ping, and no counted one is lost.
local first = true
function fixed_request(counted)
   if first then
      first = false
      return ping
   end
   if sent < share then
      sent = sent + 1
      if t_first == 0 then t_first = now_us() end
      return counted()
   end
   return ping
end

-- Marks this thread finished (a file in WEFT_DONE_DIR, which the script waits for) and stops it.
function thread_finished()
   t_last = now_us()
   local f = io.open(os.getenv("WEFT_DONE_DIR") .. "/" .. id, "w")
   f:write("done\n"); f:close()
   wrk.thread:stop()
end

-- weft_report with OK=<sum of ok> failed=<sum of failed> SECONDS=<first request to last answer>
-- RATE=<OK per second> unfinished_threads=<threads stopped by the time limit>.
function fixed_report(summary, latency, ok_name, seconds_name, rate_name)
   local o, f, first, last, unfinished = 0, 0, nil, 0, 0
   for _, t in ipairs(threads) do
      o = o + t:get(ok_name); f = f + t:get("failed")
      local tf, tl = t:get("t_first"), t:get("t_last")
      -- a thread stopped by the time limit has no end: count its time up to now
      if tf > 0 and tl == 0 then tl = now_us(); unfinished = unfinished + 1 end
      if tf > 0 and (first == nil or tf < first) then first = tf end
      if tl > last then last = tl end
   end
   local secs = (first and last > first) and (last - first) / 1e6 or 0
   weft_report(summary, latency, string.format("%s=%d failed=%d %s=%.3f %s=%.1f unfinished_threads=%d",
      ok_name, o, f, seconds_name, secs, rate_name, secs > 0 and o / secs or 0, unfinished))
end
