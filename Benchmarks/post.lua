-- wrk script for Benchmarks/run.sh's upload scenario: POST with a body of N bytes
-- (default 16384, `x` repeated), Content-Type application/octet-stream.
--
--   wrk -t2 -c64 -d10s -s post.lua URL -- 16384

function init(args)
    local size = tonumber(args[1]) or 16384
    wrk.method = "POST"
    wrk.body = string.rep("x", size)
    wrk.headers["Content-Type"] = "application/octet-stream"
end
