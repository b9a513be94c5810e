import CatbirdSupport

/// What a configured response (a mock's, or a file mock's sidecar with its body file) must be
/// for the server to send it as given, so that what the journal records is what goes out
/// (docs/protocol.md#what-the-journal-records). One rule for both kinds of mock: a mock breaking
/// it is refused when added (400), a file mock answers 500 naming its sidecar (docs/files.md#sidecar).
public enum ResponseRules {
    /// Who configured the response, for the reason's wording.
    public enum Source: Sendable {
        /// A mock added through `POST /catbird/api/mocks`: fields named `response.…`.
        case mock
        /// A file mock: the sidecar's `status` and `headers`, the body file.
        case file
    }

    /// Why a response cannot be sent as configured: one sentence naming the field.
    public struct Violation: Error, Sendable, CustomStringConvertible {
        public let reason: String
        public var description: String { reason }
    }

    /// Checks a final response.
    /// - Parameters:
    ///   - status: the status code; must be in ``statusRange``, 200...599 (a 1xx is an interim
    ///     answer, never the final one: libmicrohttpd would send the interim line alone and the
    ///     client would wait).
    ///   - headers: the header fields, in order.
    ///   - bodyLength: the body's length in bytes (0 for none).
    /// - Throws: ``Violation`` for a status outside ``statusRange``, a body on a 204, 205 or 304
    ///   (RFC 9110 §15.3.5, §15.3.6, §15.4.5), a header name that is not a token, a value with a control
    ///   character other than tab, an empty value (libmicrohttpd drops it), `Transfer-Encoding`,
    ///   a `Content-Length` other than the body's length (on a 304 too, where RFC 9110 §8.6 would
    ///   allow the representation's: libmicrohttpd sends its own `Content-Length: 0` there), a
    ///   `Connection` other than `close`, a second `Connection` (the wire carries one
    ///   `Connection: close`, the journal would hold `close, close`), a second field of
    ///   ``singletonFields`` (any spelling; tester findings T13-F5 for `Date`, T13B-F2), a value
    ///   that is only spaces and tabs or has them around it (RFC 9110 §5.5: they are not part of
    ///   the value, so a client reads it without them while the journal would hold them; T13B-F3).
    public static func check(
        status: Int, headers: [(name: String, value: String)], bodyLength: Int, source: Source
    ) throws(Violation) {
        let statusField = source == .mock ? "'response.status'" : "'status'"
        guard statusRange.bounds.contains(status) else {
            throw Violation(
                reason: "\(statusField) must be \(statusRange.wording), not \(status)"
                    + (status >= 100 && status <= 199 ? " (a 1xx is an interim answer, never a final response)" : ""))
        }
        if (status == 204 || status == 205 || status == 304) && bodyLength > 0 {
            // These responses end at the header section (a 205 "MUST NOT" have content, RFC
            // 9110 §15.3.6; libmicrohttpd would send it, and a client reading none would take
            // it for the start of the next response): a body would never be read as this
            // response's while the journal recorded it.
            throw Violation(
                reason: "a \(status) response has no body (RFC 9110): "
                    + (source == .mock ? "remove 'response.body'" : "the body file must be empty"))
        }
        let where_ = source == .mock ? "response header" : "header"
        var singletons: [String: String] = [:]  // lower-cased name: the spelling first given
        var connection: String?
        for (name, value) in headers {
            // Cut to 64 bytes, as every echoed name is: a 20,000-byte name quoted whole pushed
            // the complaint past the reason's 8,000-byte bound (tester finding T19B-F16).
            let quoted = JSONText.shortString(name)
            guard !name.isEmpty, name.utf8.allSatisfy(isTokenCharacter) else {
                throw Violation(reason: "\(where_) name \(quoted) is not a valid HTTP field name")
            }
            guard !value.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) else {
                throw Violation(reason: "\(where_) \(quoted) has a control character (such as a line break) in its value")
            }
            if value.utf8.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) {
                throw Violation(
                    reason: "\(where_) \(quoted) has an empty value"
                        + (value.isEmpty ? "" : " (only spaces or tabs, which are not part of a value: RFC 9110 §5.5)")
                        + ", which the server cannot send: leave it out")
            }
            if let first = value.utf8.first, let last = value.utf8.last,
               let edge = [first, last].first(where: { $0 == 0x20 || $0 == 0x09 }) {
                throw Violation(
                    reason: "\(where_) \(quoted) has \(edge == 0x20 ? "a space" : "a tab") at the start or end of its value "
                        + "\(JSONText.shortString(value)), which is not part of the value (RFC 9110 §5.5): a client reads it without, "
                        + "while the journal would hold it; remove it")
            }
            if name.equalsIgnoringASCIICase("Transfer-Encoding") {
                throw Violation(reason: "\(where_) \(quoted) is not allowed: the server frames the body itself (Content-Length)")
            }
            if name.equalsIgnoringASCIICase("Content-Length"), value != String(bodyLength) {
                if status == 304 {
                    // RFC 9110 §8.6 allows a 304 the representation's length, but libmicrohttpd
                    // 0.9.75 adds `Content-Length: 0` to every 304 itself: the client would get two
                    // (measured on the wire; with MHD_RF_INSANITY_HEADER_CONTENT_LENGTH too).
                    throw Violation(
                        reason: "\(where_) \(quoted) cannot be sent on a 304: RFC 9110 allows the representation's length there, "
                            + "but libmicrohttpd 0.9.75 always sends its own Content-Length: 0 on a 304, so the client would get both; leave it out")
                }
                throw Violation(
                    reason: "\(where_) \(quoted) must be the body's length (\(bodyLength)) or left out: the server sends the body's length")
            }
            if name.equalsIgnoringASCIICase("Connection") {
                guard value.asciiLowercased() == "close" else {
                    throw Violation(reason: "\(where_) \(quoted) may only be \"close\": the server manages keep-alive itself")
                }
                if let first = connection {
                    throw Violation(
                        reason: "\(where_) \(quoted) is a second Connection (beside \(JSONText.shortString(first))): the server sends one "
                            + "Connection: close, while the journal would hold \"close, close\"; give one")
                }
                connection = name
            }
            let lowered = name.asciiLowercased()
            if let rule = singletonFields[lowered] {
                if let first = singletons[lowered] {
                    throw Violation(
                        reason: "\(where_) \(quoted) is a second \(rule.name) (beside \(JSONText.shortString(first))): a response has one "
                            + "\(rule.name) (\(rule.source)), and clients would read either value; give one")
                }
                singletons[lowered] = name
            }
        }
    }

    /// The response fields a response may hold once, by lower-cased name: their spelling and the
    /// section defining each as a single value rather than a list. RFC 9110 §5.3: "a sender MUST
    /// NOT generate multiple field lines with the same name in a message … unless that field's
    /// definition allows multiple field line values to be recombined as a comma-separated list";
    /// these are the response fields of RFC 9110 and RFC 9111 whose grammar is no list (so two
    /// spellings of one, such as `Content-Type` and `content-type`, would send two values of which
    /// curl reads the last and others the first; tester finding T13B-F2). List fields
    /// (`Set-Cookie`, `Cache-Control`, `Vary`, `Link`, custom fields) may be given in several
    /// spellings (docs/protocol.md#control-actions).
    public static let singletonFields: [String: (name: String, source: String)] = Dictionary(
        uniqueKeysWithValues: ([
            ("Age", "RFC 9111 §5.1"),
            ("Content-Length", "RFC 9110 §8.6"),
            ("Content-Location", "RFC 9110 §8.7"),
            ("Content-Range", "RFC 9110 §14.4"),
            ("Content-Type", "RFC 9110 §8.3"),
            ("Date", "RFC 9110 §6.6.1; libmicrohttpd 0.9.75 would send only the last"),
            ("ETag", "RFC 9110 §8.8.3"),
            ("Expires", "RFC 9111 §5.3"),
            ("Last-Modified", "RFC 9110 §8.8.2"),
            ("Location", "RFC 9110 §10.2.2"),
            ("Retry-After", "RFC 9110 §10.2.3"),
            ("Server", "RFC 9110 §10.2.4"),
        ] as [(String, String)]).map { (name, source) in (name.asciiLowercased(), (name: name, source: source)) })

    /// RFC 9110 §5.6.2 tchar: what a field name or a method token is made of.
    public static func isTokenCharacter(_ byte: UInt8) -> Bool {
        HTTPToken.isTokenCharacter(byte)
    }
}
