#!/usr/bin/env bash
# The `json` body pattern's reading of a request body (try9a F18/F16), before and after, in one
# invocation: builds Benchmarks/JSONBody (JSONValue.swift and JSONBodyParser.swift from this
# tree, -O) and prints, for the tester's body shapes and sizes, the best of several reads in
# CPU microseconds (thread CPU time, so the shared machine's load counts little) of
#   reference  JSONValue(json:): JSONDecoder through JSONValue's Decodable init, the reading of
#              main before this change (and the fallback JSONBodyParser keeps for rare texts)
#   parser     JSONBodyParser.value(of:): the reading now used by the `json` body pattern
# and whether both read the same value. With valgrind installed, also callgrind's instruction
# counts of one read of the tester's 61,531-byte body each way (repeatable on a loaded machine).
#
#   bash Benchmarks/json-body.sh
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
# The two files without their module imports, in one module; JSONText is only used by
# JSONValue.jsonText, which the benchmark does not call.
grep -v '^import Catbird\|^@_spi(Server) import Catbird' "$ROOT/Sources/CatbirdWire/JSONValue.swift" > "$WORK/JSONValue.swift"
grep -v '^import Catbird' "$ROOT/Sources/CatbirdMatching/JSONBodyParser.swift" > "$WORK/JSONBodyParser.swift"
echo 'enum JSONText { static func string(_ text: String) -> String { text } }' > "$WORK/JSONText.swift"
swiftc -O -module-name JSONBody "$WORK/JSONValue.swift" "$WORK/JSONBodyParser.swift" "$WORK/JSONText.swift" \
    -o "$WORK/json-body" "$ROOT/Benchmarks/JSONBody/main.swift" 2>&1 | grep -v warning || true
"$WORK/json-body"
if command -v valgrind > /dev/null; then
    declare -A count
    for mode in none reference parser; do
        valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.$mode" "$WORK/json-body" "$mode" 1250 > /dev/null 2> "$WORK/cg.$mode.log"
        count["$mode"]=$(grep -o 'Collected : [0-9]*' "$WORK/cg.$mode.log" | grep -o '[0-9]*')
    done
    echo "callgrind, the tester's 61,531-byte body: process without a read ${count[none]} instructions;"
    echo "  one read by the reference $(( count[reference] - count[none] )), by the parser $(( count[parser] - count[none] ))" \
        "(ratio $(( (count[reference] - count[none]) / (count[parser] - count[none]) ))x)"
fi
