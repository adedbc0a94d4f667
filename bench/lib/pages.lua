-- bench/pages (after lib/fixed-count.lua): each wrk thread sends its share of WEFT_COUNT GETs
-- of WEFT_PATH, then stops. After its share a connection whose next request is due sends
-- GET /ping until the thread's GETs are answered.
share, sent, ok, failed, t_first, t_last, finished = 0, 0, 0, 0, 0, 0, false
local get
function init(args)
   fixed_init()
   get = wrk.format("GET", os.getenv("WEFT_PATH"))
end

function request()
   return fixed_request(function() return get end)
end

function response(status, headers, body)
   -- only the pages count (a ping's answer is not a JSON array)
   if finished or t_first == 0 or body:sub(1, 1) ~= "[" then return end
   if status == 200 then ok = ok + 1 else failed = failed + 1 end
   if ok + failed >= share then
      finished = true
      thread_finished()
   end
end

function done(summary, latency, requests)
   fixed_report(summary, latency, "ok", "run_seconds", "queries_per_s")
end
