import CatbirdMatching
import CatbirdSupport
@_spi(Server) import CatbirdWire

/// Checks of a `json` body pattern's value made by the control routes that take a pattern
/// (`update`, count, find, wait) before it is compiled, with the control body's own JSON reader
/// (``JSONTextCheck``), so that the 400 says where the value stops being JSON
/// (docs/matching.md#body-matchers).
enum BodyPatternCheck {
    /// - Throws: ``PatternError/invalidBodyPattern(reason:)`` for a `json` value that is not
    ///   RFC 8259 JSON, naming the line, column and byte offset in the value and what is wrong
    ///   there (`{"a":1,}`: a trailing comma; tester finding try10a F12: such a value was read
    ///   by a lenient parser and accepted), or that names a key twice in one object
    ///   (`{"a":1,"a":2}`: which value the mock expects would be a guess, parsers differ: this
    ///   server's reads the first, JavaScript's, Python's and Jackson's the last; as for a
    ///   control body, ``JSONBody``; tester finding try6a F8).
    static func check(_ pattern: RequestPattern) throws(PatternError) {
        guard let body = pattern.body, body.kind == .json else { return }
        let findings = JSONTextCheck.scan(Array(body.value.utf8), as: .value)
        if let syntaxError = findings.syntaxError {
            throw .invalidBodyPattern(
                reason: "'pattern.body.value' must be JSON text (RFC 8259) for the kind \"json\", as a request body must be "
                    + "to match it: \(syntaxError)")
        }
        if let (path, key) = findings.duplicateKey {
            let object = path.isEmpty ? "top-level object" : "object '\(path)'"
            throw .invalidBodyPattern(
                reason: "'pattern.body.value' is JSON whose \(object) has the key \(JSONText.shortString(key)) more than once, "
                    + "so which value the mock expects is unclear; give each key once")
        }
    }
}
