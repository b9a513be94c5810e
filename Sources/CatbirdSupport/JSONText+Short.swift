extension JSONText {
    /// How many UTF-8 bytes of a long string (a tenant id) text for people shows: 64.
    public static let shownBytes = 64

    /// `value` as a JSON string literal for text people read (an error's reason, the web
    /// page): a value longer than `maxBytes` UTF-8 bytes is cut to its first `maxBytes` (at a
    /// Unicode scalar boundary, ``Swift/StringProtocol/utf8Prefix(_:)``), with `…` inside the
    /// quotes and its length in bytes after them, e.g. `"aaaa…" (20000 bytes)`, so a
    /// 20,000-byte tenant id cannot swamp a message. JSON fields meant for programs keep the
    /// whole value (docs/tenancy.md#ids-in-messages).
    public static func shortString(_ value: String, maxBytes: Int = shownBytes) -> String {
        guard value.utf8.count > maxBytes else { return string(value) }
        return string(value.utf8Prefix(maxBytes) + "…") + " (\(value.utf8.count) bytes)"
    }

    /// ``shortString(_:maxBytes:)`` with each character a reader may not see written as a JSON
    /// `\u` escape (``Swift/Unicode/Scalar/mayNotShow``: DEL, C1 controls, default-ignorable and
    /// other invisible code points, which JSON leaves as they are), as a log line writes a tenant
    /// id. For a value that is wrong because of such a character, which a reason quoting it as is
    /// showed as a valid-looking one: `the header field name "X-H" is not an HTTP token` of
    /// `X-H<DEL>` (tester finding tester58a-F8).
    public static func shortStringShowingInvisible(_ value: String, maxBytes: Int = shownBytes) -> String {
        let literal = shortString(value, maxBytes: maxBytes)
        guard literal.unicodeScalars.contains(where: \.mayNotShow) else { return literal }
        var shown = ""
        for scalar in literal.unicodeScalars {
            if scalar.mayNotShow { scalar.appendJSONEscape(to: &shown) } else { shown.unicodeScalars.append(scalar) }
        }
        return shown
    }

    /// `value` cut to its first `maxBytes` UTF-8 bytes with `…` after it when it is longer, not
    /// quoted: a key inside a dotted path that a reason names (`'pattern.headers.aaaa….kind'`).
    public static func shortText(_ value: String, maxBytes: Int = shownBytes) -> String {
        value.utf8.count > maxBytes ? value.utf8Prefix(maxBytes) + "…" : value
    }

    /// `value` cut to its first `maxBytes` UTF-8 bytes (at a Unicode scalar boundary) and
    /// followed by `… (N bytes)`, its length in UTF-8 bytes, when it is longer; else `value`.
    /// Not quoted: how a near miss shows a long value inside its quotes, a request's body or url
    /// or header value, a pattern's value, a JSON difference's (docs/matching.md#near-misses).
    public static func cutWithLength(_ value: String, maxBytes: Int) -> String {
        guard value.utf8.count > maxBytes else { return value }
        return "\(value.utf8Prefix(maxBytes))… (\(value.utf8.count) bytes)"
    }

    /// Appends ``shortString(_:maxBytes:)`` of `value` (a 404's reason names tenants so); with
    /// `nested`, as written inside another JSON string (the reason within the 404's body,
    /// ``ByteWriter/appendNestedJSONString(_:)``).
    public static func appendShortString(_ value: String, maxBytes: Int = shownBytes, nested: Bool = false, to out: inout ByteWriter) {
        if value.utf8.count <= maxBytes {
            if nested { out.appendNestedJSONString(value) } else { out.appendJSONString(value) }
        } else if nested {
            out.appendJSONStringContent(shortString(value, maxBytes: maxBytes))
        } else {
            out.append(utf8: shortString(value, maxBytes: maxBytes))
        }
    }
}
