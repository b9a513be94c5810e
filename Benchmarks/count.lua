-- wrk script for the RSS part of Benchmarks/run.sh: each wrk thread stops itself after
-- `per_thread` responses, so one wrk run drives a known number of requests.
--
--   wrk -t2 -c64 -d600s -s count.lua URL -- <per_thread> <done_dir>
--
-- wrk's main thread sleeps for the whole -d duration even after every thread has stopped
-- (wrk 4.1 only ends early on SIGINT), so each thread also drops a marker file
-- <done_dir>/done.<id> when it stops; run.sh waits for one per thread, then sends wrk
-- SIGINT so it prints its summary at once. -d stays the hard time cap.

local counter = 0
local next_id = 0

-- Runs in the main Lua state, once per thread, before the threads start.
function setup(thread)
    next_id = next_id + 1
    thread:set("id", next_id)
end

-- Runs in each thread's own Lua state.
function init(args)
    per_thread = tonumber(args[1]) or 500000
    done_dir = args[2]
end

function response(status, headers, body)
    counter = counter + 1
    if counter == per_thread then
        if done_dir then
            local marker = io.open(done_dir .. "/done." .. tostring(id), "w")
            if marker then
                marker:write(tostring(counter), "\n")
                marker:close()
            end
        end
        wrk.thread:stop()
    end
end
