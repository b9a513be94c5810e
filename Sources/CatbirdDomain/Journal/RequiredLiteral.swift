/// The longest run of ASCII characters that every match of a regular expression must contain
/// (compared ignoring ASCII case), found by a conservative scan, for a `LIKE '%…%'` filter in
/// front of the Swift matcher (``JournalPatternSQL``).
///
/// The scan gives up (nil) on a top-level `|`, on `(?` (flags such as `x` change what
/// characters mean) and on `\Q`; it skips groups and classes whole, drops a character followed
/// by `?`, `*` or `{` (it may be absent), and ends a run at anything not a plain letter, digit or
/// escaped punctuation. Only runs of two or more characters are worth a filter.
enum RequiredLiteral {
    static func longest(in expression: String) -> String? {
        let bytes = Array(expression.utf8)
        var runs: [[UInt8]] = []
        var run: [UInt8] = []
        var index = 0
        func endRun() {
            if run.count >= 2 { runs.append(run) }
            run = []
        }
        var depth = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\\"):
                guard index + 1 < bytes.count else { return nil }
                let escaped = bytes[index + 1]
                if escaped == UInt8(ascii: "Q") { return nil }
                index += 2
                if depth > 0 { continue }
                let isLetterOrDigit = (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(escaped)
                    || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(escaped | 0x20)
                if isLetterOrDigit || escaped >= 0x80 { endRun() } else { run.append(escaped) }
                continue
            case UInt8(ascii: "["):
                // Skip the class (a `]` right after `[` or `[^` is a member; nested classes count).
                index += 1
                var classDepth = 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "^") { index += 1 }
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1 }
                while index < bytes.count, classDepth > 0 {
                    if bytes[index] == UInt8(ascii: "\\") { index += 2; continue }
                    if bytes[index] == UInt8(ascii: "[") { classDepth += 1 }
                    if bytes[index] == UInt8(ascii: "]") { classDepth -= 1 }
                    index += 1
                }
                if depth == 0 { endRun() }
                continue
            case UInt8(ascii: "("):
                if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "?") { return nil }
                depth += 1
                if depth == 1 { endRun() }
            case UInt8(ascii: ")"):
                depth -= 1
                if depth < 0 { return nil }
            case UInt8(ascii: "|"):
                if depth == 0 { return nil }
            case UInt8(ascii: "?"), UInt8(ascii: "*"), UInt8(ascii: "{"):
                if depth == 0 {
                    // The atom before may be absent: drop it when it was the run's last character.
                    if !run.isEmpty { run.removeLast() }
                    endRun()
                }
                if byte == UInt8(ascii: "{") {
                    while index < bytes.count, bytes[index] != UInt8(ascii: "}") { index += 1 }
                }
            default:
                if depth > 0 { break }
                let isPlain = (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                    || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
                    || "/-_:=&%@,;'\"<>~`! ".utf8.contains(byte)
                if isPlain { run.append(byte) } else { endRun() }
            }
            index += 1
        }
        endRun()
        guard let best = runs.max(by: { $0.count < $1.count }) else { return nil }
        return String(decoding: best, as: UTF8.self)
    }
}
