import CatbirdSupport

/// The whole-path check of a `jsonPath` body pattern's value: SQLite's JSON path syntax, read
/// step by step to the end by ``JSONPathStep``, the reader ``JSONPathDocument/lookup(_:)``
/// uses, so the check accepts exactly the paths the lookup reads to their end
/// (docs/matching.md#body-matchers; `JSONPathCheckMatchesLookupTests`).
///
/// SQLite checks a path only as far as a lookup reaches: `json_type('{}', '$.a[*]')` stops at
/// the absent `a` and reports no error, so a path whose later steps are malformed was accepted
/// when the mock was added and then never matched a body that has the earlier steps (tester
/// finding try10a F10). This reads every step, so `update`, count, find and wait refuse such a
/// path with a 400 saying where it is malformed. Stored mocks are not checked this way
/// (``CompiledBodyPattern/init(stored:)``): one added before the check still loads.
enum JSONPathSyntax {
    /// Where `path` stops being a SQLite JSON path, and why; nil when the whole path is one.
    /// `offset` counts UTF-8 bytes from 0: the start of the malformed step.
    ///
    /// A NUL is refused too, though the lookup reads the path up to it as SQLite does: what
    /// follows it would be ignored.
    static func fault(in path: String) -> (offset: Int, problem: String)? {
        let bytes = Array(path.utf8)
        if let zero = bytes.firstIndex(of: 0) {
            return (zero, "a NUL character (\\u0000), where SQLite stops reading the path, so what follows would be ignored")
        }
        guard var offset = JSONPathStep.firstStep(in: bytes) else {
            return (0, "a JSON path starts with '$' (such as \"$.user.id\")")
        }
        while let step = JSONPathStep(in: bytes, at: offset) {
            if let problem = step.problem { return (offset, description(of: problem)) }
            offset = step.next
        }
        return nil
    }

    /// What a 400 says of a malformed step.
    private static func description(of problem: JSONPathStep.Problem) -> String {
        switch problem {
        case .emptyName:
            "a '.' without a member name after it (write .name, or .\"name\" for a name holding '.' or '['; "
                + "SQLite has no recursive descent '..')"
        case .unclosedName:
            "a quoted member name (.\"name\") without its closing '\"'"
        case .arrayStep:
            "an array step is [n], [#] or [#-n] with n in decimal digits; SQLite's paths have no wildcards, "
                + "filters or negative indexes ([*], [?(...)], [-1]: [#-1] is the last element)"
        case .stepStart:
            "each step after '$' starts with '.' (a member) or '[' (an array element)"
        }
    }

    /// The 400's reason for `path`, malformed at `offset` for `problem` (``fault(in:)``).
    static func reason(_ path: String, offset: Int, problem: String) -> String {
        let rest = String(decoding: Array(path.utf8).dropFirst(offset), as: UTF8.self)
        return "'pattern.body.value' \(JSONText.shortString(path)) is not a SQLite JSON path: malformed at byte offset \(offset) "
            + "(at \(JSONText.shortString(rest))): \(problem) (docs/matching.md#body-matchers)"
    }
}
