import CSQLite

/// One SQLite built-in function that ``CheckedBuiltinFunctions`` puts behind a check of its
/// arguments on user-SQL connections, and the rules of those checks (docs/protocol.md#sql).
///
/// The cost of a call is what SQLite 3.40's own loop does at worst, in its own steps: `instr`
/// and `replace` compare the needle (pattern) at every byte of the haystack (`memcmp`, so a
/// step is a byte compared); `like` and `glob` try the pattern from its first wildcard (`%`,
/// `*`) on at every character of the subject; `trim`, `ltrim` and `rtrim` with a set of
/// characters compare each character they strip with every character of the set;
/// `json_patch` looks each key of the patch up among the target's keys. Each is bounded by the
/// product of its arguments' lengths in bytes, and refused past ``byteLoopLimit`` or
/// ``characterLoopLimit``, so that an allowed call stays around a tenth of a second of CPU
/// (measured with SQLite 3.40.1 on this 2-core machine: `instr` and `replace` compare ~2·10¹⁰
/// bytes per second, `like`, `glob` and `trim` take ~4.5·10⁸ steps per second, `json_patch`
/// ~4·10¹⁰ bytes² per second): without the check, `instr` of a 100,001-byte needle in
/// 8,000,000 bytes ran 41 s over a real server. `printf` and `format` are checked for their
/// widths and precisions instead (``PrintfFields``).
struct CheckedFunction: Sendable {
    /// The function's SQL name.
    let name: String
    /// The argument counts replaced (the built-in's other forms are left as they are).
    let argumentCounts: [Int32]
    /// Why a call with these arguments is refused (given the connection's length limit in
    /// bytes), or nil to let the built-in compute it.
    let check: @Sendable (_ arguments: UnsafeBufferPointer<OpaquePointer?>, _ valueLimit: Int) -> FunctionRefusal?

    /// The most steps one call of `instr`, `replace` or `json_patch` may take: 2³¹ bytes compared
    /// (a 64 MiB haystack with a 32-byte needle; about 0.1 s of CPU).
    static let byteLoopLimit = 1 << 31
    /// The most steps one call of `like`, `glob`, `trim`, `ltrim` or `rtrim` may take: 2²⁶ (a
    /// 64 MiB value with a 1-byte wildcard tail, `%`, or a 32 MiB one with `%a`; about 0.15 s
    /// of CPU).
    static let characterLoopLimit = 1 << 26

    /// Every checked function.
    static let all: [CheckedFunction] = [
        CheckedFunction(name: "instr", argumentCounts: [2]) { arguments, _ in
            product("instr", [("haystack", bytes(arguments[0])), ("needle", bytes(arguments[1]))], limit: byteLoopLimit)
        },
        CheckedFunction(name: "replace", argumentCounts: [3]) { arguments, _ in
            product("replace", [("value", bytes(arguments[0])), ("pattern", bytes(arguments[1]))], limit: byteLoopLimit)
        },
        // like(pattern, subject[, escape]) is `subject LIKE pattern [ESCAPE escape]`.
        CheckedFunction(name: "like", argumentCounts: [2, 3]) { arguments, _ in
            product(
                "like", [("pattern from its first %", wildcardTail(arguments[0], wildcard: "%")), ("value", bytes(arguments[1]))],
                limit: characterLoopLimit)
        },
        CheckedFunction(name: "glob", argumentCounts: [2]) { arguments, _ in
            product(
                "glob", [("pattern from its first *", wildcardTail(arguments[0], wildcard: "*")), ("value", bytes(arguments[1]))],
                limit: characterLoopLimit)
        },
        CheckedFunction(name: "trim", argumentCounts: [2]) { arguments, _ in
            product("trim", [("value", bytes(arguments[0])), ("set of characters", bytes(arguments[1]))], limit: characterLoopLimit)
        },
        CheckedFunction(name: "ltrim", argumentCounts: [2]) { arguments, _ in
            product("ltrim", [("value", bytes(arguments[0])), ("set of characters", bytes(arguments[1]))], limit: characterLoopLimit)
        },
        CheckedFunction(name: "rtrim", argumentCounts: [2]) { arguments, _ in
            product("rtrim", [("value", bytes(arguments[0])), ("set of characters", bytes(arguments[1]))], limit: characterLoopLimit)
        },
        CheckedFunction(name: "json_patch", argumentCounts: [2]) { arguments, _ in
            product("json_patch", [("target", bytes(arguments[0])), ("patch", bytes(arguments[1]))], limit: byteLoopLimit)
        },
        CheckedFunction(name: "printf", argumentCounts: [-1], check: PrintfFields.check),
        CheckedFunction(name: "format", argumentCounts: [-1], check: PrintfFields.check),
    ]

    /// Whether SQLite's built-in returns this call's first argument itself
    /// (`sqlite3_result_value`, keeping its subtype, so `json(…)` stays JSON in an enclosing
    /// `json_object`) rather than a value it computed: `replace(x, p, y)` is x when the
    /// pattern p, read as text, starts with a NUL byte (func.c's replaceFunc tests
    /// `zPattern[0]==0`: an empty pattern, `zeroblob(0)`, `x'00…'`). The other checked
    /// functions compute a new value (without subtype, as `trim`, `printf` and a `replace`
    /// that searched give it: checked against the `sqlite3` CLI of SQLite 3.40.1) or,
    /// `json_patch`, give theirs the JSON subtype themselves.
    func returnsFirstArgument(_ arguments: UnsafeBufferPointer<OpaquePointer?>) -> Bool {
        guard name == "replace", arguments.count == 3, let pattern = sqlite3_value_text(arguments[1]) else { return false }
        return pattern[0] == 0
    }

    /// The value's length in bytes as SQLite's loops see it (its text or blob; 0 for NULL).
    static func bytes(_ value: OpaquePointer?) -> Int {
        sqlite3_value_type(value) == SQLITE_NULL ? 0 : Int(sqlite3_value_bytes(value))
    }

    /// The bytes of a LIKE or GLOB pattern from its first `wildcard` on, the part SQLite may
    /// try again at every character of the subject; 1 for a pattern without one, which is
    /// matched in one pass.
    static func wildcardTail(_ pattern: OpaquePointer?, wildcard: Unicode.Scalar) -> Int {
        guard sqlite3_value_type(pattern) != SQLITE_NULL, let text = sqlite3_value_text(pattern) else { return 0 }
        let bytes = UnsafeBufferPointer(start: text, count: Int(sqlite3_value_bytes(pattern)))
        guard let first = bytes.firstIndex(of: UInt8(ascii: wildcard)) else { return 1 }
        return bytes.count - first
    }

    /// `.tooCostly` when the product of the `terms`' lengths passes `limit`, else nil.
    static func product(_ function: String, _ terms: [(name: String, length: Int)], limit: Int) -> FunctionRefusal? {
        var cost = 1
        for (_, length) in terms {
            let (result, overflow) = cost.multipliedReportingOverflow(by: length)
            cost = overflow ? Int.max : result
        }
        guard cost > limit else { return nil }
        let described = terms.map { "a \($0.length)-byte \($0.name)" }.joined(separator: " and ")
        return .tooCostly(function: function, terms: described, cost: cost, limit: limit)
    }
}

/// Why ``CheckedBuiltinFunctions`` refused a call.
enum FunctionRefusal: Equatable, CustomStringConvertible, Sendable {
    /// The result could never be built: a `printf` width or precision above the length limit
    /// (reported as SQLite's own `SQLITE_TOOBIG`).
    case tooBig
    /// The call's worst-case steps (`cost`, the product of the lengths its `terms` name,
    /// e.g. "a 8000000-byte haystack and a 100001-byte needle") pass `limit`.
    case tooCostly(function: String, terms: String, cost: Int, limit: Int)

    var description: String {
        switch self {
        case .tooBig:
            return "string or blob too big"
        case .tooCostly(let function, let terms, let cost, let limit):
            return "\(function)() of \(terms) could take \(cost) steps in one call, "
                + "past the limit of \(limit) per call (SQLite cannot interrupt a function call; "
                + "docs/protocol.md#sql): pass shorter values, e.g. substr()"
        }
    }
}
