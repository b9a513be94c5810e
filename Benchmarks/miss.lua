-- wrk script for Benchmarks/run.sh's and miss-ab.sh's miss scenarios and their reference hit.
--
--   wrk -t2 -c64 -d10s -s miss.lua -H 'X-Catbird-Parallel-Id: mix1k' URL           (misses)
--   wrk -t2 -c64 -d10s -s miss.lua URL -- hit                                      (the hit)
--   wrk -t2 -c64 -d10s -s miss.lua URL -- built [hit]                (the former form)
--
-- Misses: every request asks for another URL, /miss/<7 letters> from a per-thread
-- pseudo-random sequence (Park and Miller's minimal standard generator, exact in LuaJIT's
-- doubles, seeded by the thread's number): 4,096 distinct requests per wrk thread, asked in
-- turn, so a URL comes again only after 4,096 others of its thread, and no answer the server
-- keeps for a repeated 404 (8 per worker thread, docs/matching.md#repeated-misses) answers it.
-- `-- hit`: the same 4,096 requests are all the URL's own path (the mock hit). 4,096, not more:
-- the misses' requests (about 100 bytes each) stay in the core's cache as the hit's one request
-- does (32,768 per thread, 3.7 MB, cost wrk 1 to 4 µs more per request than the hit's form).
--
-- Both forms cost wrk the same per request: request() returns a request made in init()
-- (wrk.format, before the run), so no URL is built while the server is measured. The misses
-- used to build their URL in request() (a table, 7 string.sub, a concat, wrk.format: about
-- 16,000 instructions of wrk per request against 4,600 without a script, 5,300 in this form)
-- while the hit they were divided by ran without a script, and wrk shares the cores with the
-- server (docs/matching.md#measuring-a-miss). `-- built` keeps that form for
-- Benchmarks/miss-client.sh, which measures it (`-- built hit`: the URL built all the same, the
-- request the URL's own path). The headers given with -H (the tenant) are sent with each request.

local next_id = 0

-- Runs in the main Lua state, once per thread, before the threads start.
function setup(thread)
    next_id = next_id + 1
    thread:set("id", next_id)
end

local letters = "abcdefghijklmnopqrstuvwxyz"
local state = 0

-- The next /miss/<7 letters> of the thread's sequence.
local function next_url()
    local word = {}
    for i = 1, 7 do
        state = (state * 16807) % 2147483647
        local k = state % 26 + 1
        word[i] = letters:sub(k, k)
    end
    return "/miss/" .. table.concat(word)
end

local count = 4096
local requests = {}
local index = 0

-- The requests made in init(), in turn.
local function made_request()
    index = index % count + 1
    return requests[index]
end

-- Replaced in init() by the form asked for (wrk looks `request` up on every call).
function request()
    return made_request()
end

built = ""  -- global: the URL a built hit makes is kept, so its work is not optimized away

-- Runs in each thread's own Lua state (wrk has set the Host header and -H's fields by then).
function init(args)
    state = (id or 1) * 7919
    local hit = args[1] == "hit" or args[2] == "hit"
    if args[1] == "built" then
        request = function()
            built = next_url()
            if hit then return wrk.format(nil, nil) end
            return wrk.format(nil, built)
        end
        return
    end
    for n = 1, count do
        requests[n] = hit and wrk.format(nil, nil) or wrk.format(nil, next_url())
    end
    request = made_request
end
