-- wrk script for Benchmarks/run.sh's and miss-ab.sh's miss scenarios and their reference hit.
--
--   wrk -t2 -c64 -d10s -s miss.lua -H 'X-Catbird-Parallel-Id: mix1k' URL           (misses)
--   wrk -t2 -c64 -d10s -s miss.lua URL -- hit                                      (the hit)
--
-- Misses: every request asks for another URL, /miss/<7 letters> from a per-thread
-- pseudo-random sequence (Park and Miller's minimal standard generator, exact in LuaJIT's
-- doubles, seeded by the thread's number): 32,768 distinct requests per wrk thread, asked in
-- turn, so a URL comes again only after 32,768 others of its thread, and no answer the server
-- keeps for a repeated 404 (8 per worker thread, docs/matching.md#repeated-misses) answers it.
-- `-- hit`: the same 32,768 requests are all the URL's own path (the mock hit).
--
-- Both forms cost wrk the same per request: request() returns a request made in init()
-- (wrk.format, before the run), so no URL is built while the server is measured. The misses
-- used to build their URL in request() (a table, 7 string.sub, a concat, wrk.format: about
-- 16,000 instructions of wrk per request against 4,600 without a script, 5,300 in this form)
-- while the hit they were divided by ran without a script, and wrk shares the cores with the
-- server (docs/matching.md#measuring-a-miss). The headers given with -H (the tenant) are sent
-- with each request.

local next_id = 0

-- Runs in the main Lua state, once per thread, before the threads start.
function setup(thread)
    next_id = next_id + 1
    thread:set("id", next_id)
end

local count = 32768
local requests = {}
local index = 0

-- Runs in each thread's own Lua state (wrk has set the Host header and -H's fields by then).
function init(args)
    if args[1] == "hit" then
        local request = wrk.format(nil, nil)
        for i = 1, count do requests[i] = request end
        return
    end
    local letters = "abcdefghijklmnopqrstuvwxyz"
    local state = (id or 1) * 7919
    for n = 1, count do
        local word = {}
        for i = 1, 7 do
            state = (state * 16807) % 2147483647
            local k = state % 26 + 1
            word[i] = letters:sub(k, k)
        end
        requests[n] = wrk.format(nil, "/miss/" .. table.concat(word))
    end
end

function request()
    index = index % count + 1
    return requests[index]
end
