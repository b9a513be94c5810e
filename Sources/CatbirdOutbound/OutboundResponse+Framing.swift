import CatbirdSupport

extension OutboundResponse {
    /// What an answer's `Content-Length` fields announce, read by one rule wherever it is asked:
    /// the outbound client ending a transfer at a value that is no valid length, and wording a
    /// body cut short; the forwarding refusing values that differ, and announcing a `HEAD`
    /// answer's length (RFC 9110 section 8.6, RFC 9112 section 6.3 item 5).
    public struct AnnouncedLength: Sendable, Equatable {
        /// Each value the fields list (one field or several, each a value or a comma-separated
        /// list), without optional whitespace around it, once, in the order first given:
        /// `5, 5` → `["5"]`; `2` and `5` → `["2", "5"]`; no `Content-Length` field → `[]`.
        public let values: [String]

        /// The `Content-Length` values among `headers` (names compared case-insensitively).
        public init(_ headers: [(name: String, value: String)]) {
            var values: [String] = []
            for field in headers where field.name.equalsIgnoringASCIICase("Content-Length") {
                for element in field.value.split(separator: ",", omittingEmptySubsequences: false) {
                    let value = String(element.trimmingOptionalWhitespace())
                    if !values.contains(value) { values.append(value) }
                }
            }
            self.values = values
        }

        /// The length in bytes when the fields announce one valid length (every value the same
        /// ``validLength(_:)``); nil: no field, values that differ, or one that is no valid length.
        public var length: UInt64? {
            values.count == 1 ? Self.validLength(values[0]) : nil
        }

        /// Whether the values differ (`2` and `5`, or `2, 5`): where the body ends is ambiguous.
        public var differs: Bool { values.count > 1 }

        /// Whether a value is no valid length (``validLength(_:)``).
        public var hasInvalidValue: Bool { values.contains { Self.validLength($0) == nil } }

        /// `value` as a length: digits only (RFC 9110 section 8.6), at most 2^63-1 (libcurl's
        /// `curl_off_t`); nil for `abc`, `-1`, `+5`, `0x5`, `5abc`, `5 5`, ``, `9223372036854775808`.
        public static func validLength(_ value: String) -> UInt64? {
            guard !value.isEmpty, value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                  let length = Int64(value) else { return nil }
            return UInt64(length)
        }
    }

    /// What this answer's `Content-Length` fields announce.
    public var announcedLength: AnnouncedLength { AnnouncedLength(headers) }

    /// Whether a body follows an answer with `status` (RFC 9112 section 6.3, items 1 and 2):
    /// none follows a 1xx, 204 or 304, nor (`method` given) any answer to a `HEAD`, whose
    /// framing fields describe the `GET`'s body (RFC 9110 section 9.3.2). The one rule the
    /// outbound client (which framing fields to check) and the forwarding (how to frame a
    /// `HEAD` answer) ask.
    public static func hasBody(status: Int, method: String? = nil) -> Bool {
        method != "HEAD" && !(100..<200).contains(status) && status != 204 && status != 304
    }
}
