-- wrk script for Benchmarks/miss-client.sh only: miss.lua's former form, kept to measure what
-- it cost wrk. Every request builds another URL in Lua (a table, 7 string.sub, a concat,
-- wrk.format): /miss/<7 letters> from a per-thread pseudo-random sequence (Park and Miller's
-- minimal standard generator, seeded by the thread's number); with `-- hit` the URL is built
-- all the same but the request asks for the wrk URL's own path (the mock hit), so a hit pays
-- the misses' client work.
--
--   wrk -t2 -c64 -d5s -s miss-built.lua URL [-- hit]

local next_id = 0

-- Runs in the main Lua state, once per thread, before the threads start.
function setup(thread)
    next_id = next_id + 1
    thread:set("id", next_id)
end

local state = 0
local letters = "abcdefghijklmnopqrstuvwxyz"
local hit = false
built = ""  -- global: the URL built for a hit is kept, so its work is not optimized away

-- Runs in each thread's own Lua state.
function init(args)
    state = (id or 1) * 7919
    hit = args[1] == "hit"
end

function request()
    local word = {}
    for i = 1, 7 do
        state = (state * 16807) % 2147483647
        local k = state % 26 + 1
        word[i] = letters:sub(k, k)
    end
    built = "/miss/" .. table.concat(word)
    if hit then return wrk.format(nil, nil) end
    return wrk.format(nil, built)
end
