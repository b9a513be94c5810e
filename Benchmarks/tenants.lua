-- wrk script for Benchmarks/run.sh's tenants scenario: every request goes to the next of
-- 8 tenants in turn (X-Catbird-Parallel-Id: t0 … t7), each with its own mock at the URL.
--
--   wrk -t2 -c64 -d10s -s tenants.lua URL

local tenants = {}
local next_tenant = 0

-- Built here, not at load time: wrk sets the Host header before calling init.
function init(args)
    for i = 0, 7 do
        tenants[#tenants + 1] = wrk.format(nil, nil, { ["X-Catbird-Parallel-Id"] = "t" .. i })
    end
end

function request()
    next_tenant = next_tenant % #tenants + 1
    return tenants[next_tenant]
end
