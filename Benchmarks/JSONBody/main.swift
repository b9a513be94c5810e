// The `json` body pattern's reading of a request body, before and after try9a F18, side by side
// in one process: `JSONValue(json:)` (JSONDecoder through JSONValue's Decodable init: main's
// reading before this change, and still the reference ``JSONBodyParser`` falls back to) and
// `JSONBodyParser.value(of:)`. Built and run by Benchmarks/json-body.sh.
import Foundation

/// CPU time of this thread, in microseconds (the machine is shared: wall time is not).
func cpuMicroseconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) * 1e6 + Double(time.tv_nsec) / 1e3
}

/// `print(json.dumps([{'id': i, 'name': 'n%d' % i, 'tags': ['a', 'b']} for i in range(n)]))` (Python).
func testerArray(_ n: Int) -> [UInt8] {
    Array(("[" + (0..<n).map { #"{"id": \#($0), "name": "n\#($0)", "tags": ["a", "b"]}"# }.joined(separator: ", ") + "]\n").utf8)
}

/// try9a F16's 8.6 MB shape: `{"items":[{"id":0,"v":"abcdefgh"},…]}` (compact).
func itemsObject(_ n: Int) -> [UInt8] {
    Array((#"{"items":["# + (0..<n).map { #"{"id":\#($0),"v":"abcdefgh"}"# }.joined(separator: ",") + "]}").utf8)
}

let arguments = CommandLine.arguments
if arguments.count == 3 {
    // One read for callgrind: `reference N`, `parser N` or `none N` (no read: the process's own
    // cost) on the tester's array of N elements.
    let body = testerArray(Int(arguments[2])!)
    switch arguments[1] {
    case "reference": precondition(JSONValue(json: Data(body)) != nil)
    case "parser": precondition(JSONBodyParser.value(of: body) != nil)
    default: precondition(!body.isEmpty)
    }
    exit(0)
}

let bodies: [(String, [UInt8])] = [
    ("order-like array, 40 items", testerArray(40)),
    ("tester's array, 1,250 items", testerArray(1250)),
    ("tester's array, 1,500 items", testerArray(1500)),
    ("tester's array, 3,000 items", testerArray(3000)),
    ("tester's array, 12,000 items", testerArray(12000)),
    ("tester's array, 50,000 items", testerArray(50000)),
    ("items object, 300,000 items", itemsObject(300_000)),
]
print("body                              bytes   reference us  (us/KB)   parser us  (us/KB)   ratio  same value")
for (name, body) in bodies {
    func measure(_ read: ([UInt8]) -> JSONValue?) -> (Double, JSONValue?) {
        var best = Double.infinity
        var value: JSONValue?
        let rounds = max(3, min(50, 3_000_000 / body.count))
        for _ in 0..<rounds {
            let start = cpuMicroseconds()
            value = read(body)
            best = min(best, cpuMicroseconds() - start)
        }
        return (best, value)
    }
    let (reference, expected) = measure { JSONValue(json: Data($0)) }
    let (parser, value) = measure { JSONBodyParser.value(of: $0) }
    let kilobytes = Double(body.count) / 1000
    print(
        name.padding(toLength: 30, withPad: " ", startingAt: 0),
        String(format: "%9d %14.0f %8.2f %11.0f %8.2f %7.1fx  %@", body.count, reference, reference / kilobytes, parser,
            parser / kilobytes, reference / parser, value == expected && value != nil ? "yes" : "NO"))
}
