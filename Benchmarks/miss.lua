-- wrk script for Benchmarks/run.sh's miss scenarios: every request asks for another URL,
-- /miss/<7 letters> from a per-thread pseudo-random sequence (Park and Miller's minimal
-- standard generator, exact in LuaJIT's doubles, seeded by the thread's number), so no cache keyed by the request can answer it;
-- the headers given with -H (the tenant) are sent with each.
--
--   wrk -t2 -c64 -d10s -s miss.lua -H 'X-Catbird-Parallel-Id: mix1k' URL

local next_id = 0

-- Runs in the main Lua state, once per thread, before the threads start.
function setup(thread)
    next_id = next_id + 1
    thread:set("id", next_id)
end

local state = 0
local letters = "abcdefghijklmnopqrstuvwxyz"

-- Runs in each thread's own Lua state.
function init(args)
    state = (id or 1) * 7919
end

function request()
    local word = {}
    for i = 1, 7 do
        state = (state * 16807) % 2147483647
        local k = state % 26 + 1
        word[i] = letters:sub(k, k)
    end
    return wrk.format(nil, "/miss/" .. table.concat(word))
end
