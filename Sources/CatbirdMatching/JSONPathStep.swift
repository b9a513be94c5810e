/// One step of a SQLite JSON path, read as SQLite 3.40's `jsonLookupStep` reads it: the one
/// reading of the path grammar, which both the whole-path check (``JSONPathSyntax/fault(in:)``)
/// and the lookup in a parsed body (``JSONPathDocument/lookup(_:)``) use, so that the check
/// accepts exactly the paths the lookup reads to their end (docs/matching.md#body-matchers).
///
/// A path is `$`, then steps: `.name` (up to the next `.` or `[`; not empty), `."name"` (up to
/// the next `"`, no escapes; `.""` is the empty name), `[n]` (decimal digits, wrapping at
/// 2^32), `[#]` or `[#-n]`. A zero byte ends the path, as the end of its bytes does (SQLite
/// reads a path only up to its first zero byte).
///
/// SQLite reports a malformed step only when a lookup reaches it, and for some steps only
/// after looking at the value it stands on: `.` on a value that is not an object, and `[#` on
/// one that is not an array (or `[#-n` past the array's start), end the lookup as absent
/// first. So a malformed step still says what it selects as far as SQLite reads it
/// (``selector``), beside its ``problem``.
struct JSONPathStep {
    /// What a step selects in the value it stands on.
    enum Selector: Equatable {
        /// `.name` or `."name"`: the first member of an object with these bytes of the path as
        /// its name as written in the body.
        case member(Range<Int>)
        /// `[n]`: an array's element `n` (from 0).
        case element(UInt32)
        /// `[#]` (0) or `[#-n]` (n): the array's element that many before its end.
        case fromEnd(UInt32)
    }

    /// Why a step is malformed.
    enum Problem: Equatable {
        /// `.` with no name after it (`$.`, `$..a`, `$.[0]`).
        case emptyName
        /// `."name` without its closing `"`.
        case unclosedName
        /// `[` not followed by `n]`, `#]` or `#-n]` (`[*]`, `[-1]`, `[]`, `[#5]`).
        case arrayStep
        /// A step that starts with neither `.` nor `[`.
        case stepStart
    }

    /// Where the step starts in the path: its `.` or `[` (UTF-8 bytes from 0).
    let start: Int
    /// What it selects; for a malformed step, what SQLite reads of it before it reports the
    /// error, to end the lookup as absent first (nil: SQLite reports it at once).
    let selector: Selector?
    /// Why it is malformed; nil for a step SQLite reads.
    let problem: Problem?
    /// Where the next step starts (meaningful only when ``problem`` is nil).
    let next: Int

    /// The offset of the first step of `path`: 1, after its `$`; nil when it does not start
    /// with `$`.
    static func firstStep(in path: [UInt8]) -> Int? {
        path.first == UInt8(ascii: "$") ? 1 : nil
    }

    /// The step of `path` at `start`; nil at the end of the path (its end or a zero byte).
    ///
    /// Inlined: it runs for every step of every `jsonPath` lookup of a request body, and
    /// called, it cost a lookup 6 % more instructions than the scanner it replaced; inlined,
    /// 5 % fewer (callgrind, 120,000 lookups of 6 paths in a 3 KB body, -O -wmo: 1,997
    /// instructions a lookup against 2,113 before the shared reader).
    @inline(__always)
    init?(in path: [UInt8], at start: Int) {
        func at(_ i: Int) -> UInt8 { i < path.count ? path[i] : 0 }
        func isDigit(_ i: Int) -> Bool { at(i) >= UInt8(ascii: "0") && at(i) <= UInt8(ascii: "9") }
        func digit(_ i: Int) -> UInt32 { UInt32(at(i) - UInt8(ascii: "0")) }
        self.start = start
        switch at(start) {
        case 0:
            return nil
        case UInt8(ascii: "."):
            if at(start + 1) == UInt8(ascii: "\"") {
                var end = start + 2
                while at(end) != 0 && at(end) != UInt8(ascii: "\"") { end += 1 }
                selector = .member((start + 2)..<end)
                problem = at(end) == 0 ? .unclosedName : nil
                next = end + 1
            } else {
                var end = start + 1
                while at(end) != 0 && at(end) != UInt8(ascii: ".") && at(end) != UInt8(ascii: "[") { end += 1 }
                selector = .member((start + 1)..<end)
                problem = end == start + 1 ? .emptyName : nil
                next = end
            }
        case UInt8(ascii: "["):
            var end = start + 1
            var index: UInt32 = 0
            while isDigit(end) {
                index = index &* 10 &+ digit(end)
                end += 1
            }
            if end > start + 1 && at(end) == UInt8(ascii: "]") {
                selector = .element(index)
                problem = nil
            } else if at(start + 1) == UInt8(ascii: "#") {
                var back: UInt32 = 0
                end = start + 2
                if at(end) == UInt8(ascii: "-") && isDigit(end + 1) {
                    end += 1
                    while isDigit(end) {
                        back = back &* 10 &+ digit(end)
                        end += 1
                    }
                }
                selector = .fromEnd(back)
                problem = at(end) == UInt8(ascii: "]") ? nil : .arrayStep
            } else {
                selector = nil
                problem = .arrayStep
            }
            next = end + 1
        default:
            selector = nil
            problem = .stepStart
            next = start
        }
    }
}
