-- bench/messages: each request is a batch of WEFT_BATCH messages {id, text, author, createdAt},
-- as a JSON array or as ndjson (WEFT_FORMAT), or (WEFT_FORMAT=list) a GET of one author's
-- messages. Bodies are built in init() into a pool per thread and sent in rotation, so that the
-- load generator spends its time sending, not building; "id" has no unique constraint.
local WORDS = {}
for w in ([[alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november
oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu river stone
cloud maple cedar birch ember frost gale harbor island jungle kettle lantern meadow
nectar orchard pebble quartz raven saddle timber umber valley willow yarrow zephyr amber
basalt copper dune fjord glacier heron ivory jasper koala lotus]]):gmatch("%S+") do
   WORDS[#WORDS + 1] = w
end

local next_id = 0
function setup(thread)
   thread:set("id", next_id)
   next_id = next_id + 1
end

local function message(i, authors)
   local text = {}
   for k = 0, 11 do text[#text + 1] = WORDS[((i * 13 + k * 3) % 64) + 1] end
   return string.format('{"id":"%08x-%04x-4%03x-8%03x-%012x","text":"%s","author":"author-%d","createdAt":"2026-11-22T%02d:%02d:%02d.000Z"}',
      i % 4294967296, i % 65536, i % 4096, (i * 7) % 4096, (i * 2654435761) % 281474976710656,
      table.concat(text, " "), i % authors, math.floor(i / 3600) % 24, math.floor(i / 60) % 60, i % 60)
end

local pool, n = {}, 0
function init(args)
   local format = os.getenv("WEFT_FORMAT")
   local batch = tonumber(os.getenv("WEFT_BATCH") or "1")
   local authors = tonumber(os.getenv("WEFT_AUTHORS") or "100")
   local size = math.max(2, math.min(64, math.floor(20000 / batch)))
   if format == "list" then
      local filter_prefix = os.getenv("WEFT_LIST_PREFIX")   -- path up to the author number
      local suffix = os.getenv("WEFT_LIST_SUFFIX")
      for a = 0, authors - 1 do
         pool[#pool + 1] = wrk.format("GET", filter_prefix .. a .. suffix)
      end
      -- start each thread at a different author
      n = (id * 37) % #pool
      return
   end
   local ctype = (format == "ndjson") and "application/x-ndjson" or "application/json"
   local base = id * 1000000
   for p = 1, size do
      local msgs = {}
      for m = 1, batch do msgs[m] = message(base + (p - 1) * batch + m, authors) end
      local body
      if format == "ndjson" then body = table.concat(msgs, "\n") .. "\n"
      else body = "[" .. table.concat(msgs, ",") .. "]" end
      -- the command line's -H headers (Authorization) plus Content-Type: wrk.format uses a
      -- headers table given to it instead of wrk.headers, not on top of them
      local h = {}
      for k, v in pairs(wrk.headers) do h[k] = v end
      h["Content-Type"] = ctype
      pool[p] = wrk.format("POST", nil, h, body)
   end
end

function request()
   n = n + 1
   if n > #pool then n = 1 end
   return pool[n]
end
