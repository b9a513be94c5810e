import CatbirdSupport

/// The whole-path check of a `jsonPath` body pattern's value: SQLite's JSON path syntax, as
/// ``JSONPathDocument/lookup(_:)`` reads it (SQLite 3.40's `jsonLookupStep`), step by step to
/// the end (docs/matching.md#body-matchers).
///
/// SQLite checks a path only as far as a lookup reaches: `json_type('{}', '$.a[*]')` stops at
/// the absent `a` and reports no error, so a path whose later steps are malformed was accepted
/// when the mock was added and then never matched a body that has the earlier steps (tester
/// finding try10a F10). This reads every step, so `update`, count, find and wait refuse such a
/// path with a 400 saying where it is malformed. Stored mocks are not checked this way
/// (``CompiledBodyPattern/init(stored:)``): one added before the check still loads.
enum JSONPathSyntax {
    /// Where `path` stops being a SQLite JSON path, and why; nil when the whole path is one.
    /// `offset` counts UTF-8 bytes from 0.
    ///
    /// A path is `$`, then steps: `.name` (up to the next `.` or `[`; not empty), `."name"`
    /// (up to the next `"`, no escapes), `[n]` (decimal digits), `[#]` or `[#-n]`. A NUL is
    /// refused too: SQLite reads a path only up to its first NUL, so the rest would be ignored.
    static func fault(in path: String) -> (offset: Int, problem: String)? {
        let bytes = Array(path.utf8)
        func at(_ i: Int) -> UInt8 { i < bytes.count ? bytes[i] : 0 }
        func isDigit(_ i: Int) -> Bool { at(i) >= UInt8(ascii: "0") && at(i) <= UInt8(ascii: "9") }
        if let zero = bytes.firstIndex(of: 0) {
            return (zero, "a NUL character (\\u0000), where SQLite stops reading the path, so what follows would be ignored")
        }
        guard at(0) == UInt8(ascii: "$") else { return (0, "a JSON path starts with '$' (such as \"$.user.id\")") }
        var step = 1
        while step < bytes.count {
            switch bytes[step] {
            case UInt8(ascii: "."):
                if at(step + 1) == UInt8(ascii: "\"") {
                    guard let close = bytes[(step + 2)...].firstIndex(of: UInt8(ascii: "\"")) else {
                        return (step, "a quoted member name (.\"name\") without its closing '\"'")
                    }
                    step = close + 1
                } else {
                    var end = step + 1
                    while end < bytes.count && bytes[end] != UInt8(ascii: ".") && bytes[end] != UInt8(ascii: "[") { end += 1 }
                    guard end > step + 1 else {
                        return (step, "a '.' without a member name after it (write .name, or .\"name\" for a name holding '.' or '['; "
                            + "SQLite has no recursive descent '..')")
                    }
                    step = end
                }
            case UInt8(ascii: "["):
                var end = step + 1
                if isDigit(end) {
                    while isDigit(end) { end += 1 }
                } else if at(end) == UInt8(ascii: "#") {
                    end += 1
                    if at(end) == UInt8(ascii: "-") && isDigit(end + 1) {
                        end += 1
                        while isDigit(end) { end += 1 }
                    }
                }
                guard end > step + 1, at(end) == UInt8(ascii: "]") else {
                    return (step, "an array step is [n], [#] or [#-n] with n in decimal digits; SQLite's paths have no wildcards, "
                        + "filters or negative indexes ([*], [?(...)], [-1]: [#-1] is the last element)")
                }
                step = end + 1
            default:
                return (step, "each step after '$' starts with '.' (a member) or '[' (an array element)")
            }
        }
        return nil
    }

    /// The 400's reason for `path`, malformed at `offset` for `problem` (``fault(in:)``).
    static func reason(_ path: String, offset: Int, problem: String) -> String {
        let rest = String(decoding: Array(path.utf8).dropFirst(offset), as: UTF8.self)
        return "'body.value' \(JSONText.shortString(path)) is not a SQLite JSON path: malformed at byte offset \(offset) "
            + "(at \(JSONText.shortString(rest))): \(problem) (docs/matching.md#body-matchers)"
    }
}
