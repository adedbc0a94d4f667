-- bench/create (after lib/fixed-count.lua): each wrk thread POSTs its share of WEFT_COUNT distinct documents, then stops.
-- make_doc must stay identical to create_doc() in bench/lib/gen.py (the ndjson half sends the
-- same documents). After its share, a connection whose next request is due sends GET /ping
-- (wrk cannot idle a connection) until the thread's POSTs are all answered.
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
function init(args)
   fixed_init()
end

function request()
   return fixed_request(function() return wrk.format("POST", nil, post_headers(), make_doc(id, sent)) end)
end

function response(status, headers, body)
   if finished then return end
   if status == 201 then created = created + 1
   elseif status ~= 200 then failed = failed + 1 end
   if created + failed >= share then
      finished = true
      thread_finished()
   end
end

function done(summary, latency, requests)
   fixed_report(summary, latency, "created", "doc_seconds", "docs_per_s")
end
