extension Unicode.Scalar {
    /// The scalar's code point as Unicode writes it, at least four hex digits: `U+000A` for a
    /// line feed, `U+212A` for KELVIN SIGN, `U+1F600` for 😀. How a reason names a character
    /// that may not show, or that reads like another.
    public var codePointText: String {
        let hex = String(value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    /// Whether the scalar may not show, or shows as another: non-ASCII white space (U+00A0,
    /// U+2007, U+202F, U+3000, the line separators, …) or a default-ignorable code point
    /// (U+200B, U+200D, U+2060, U+FEFF, U+00AD, the bidirectional controls, …). A 404's reason
    /// writes such a character `<U+202F>` and a log line's quoted tenant id `\u202f`, so that
    /// two texts that differ in one read differently (tester findings tester43a-F2, tester50a-F4).
    public var isLookAlike: Bool {
        value >= 0x80 && (properties.isWhitespace || properties.isDefaultIgnorableCodePoint)
    }

    /// Whether a quoted text for people writes the scalar as a `\u` escape: DEL, or a non-ASCII
    /// look-alike (``isLookAlike``) or other format, control (C1), private-use, unassigned or
    /// surrogate code point, which a reader may not see or tell apart. How a log line writes a
    /// tenant id (`TenantID.logForm`) and a reason quotes a header field name
    /// (``JSONText/shortStringShowingInvisible(_:maxBytes:)``). C0 controls are JSON's own escapes.
    public var mayNotShow: Bool {
        if value == 0x7F { return true }
        guard value >= 0x80 else { return false }
        if isLookAlike { return true }
        switch properties.generalCategory {
        case .format, .privateUse, .unassigned, .control, .surrogate: return true
        default: return false
        }
    }

    /// Appends the scalar to `out` as JSON's `\uXXXX` escape (its UTF-16 surrogate pair past
    /// U+FFFF), in lower-case hex as JSON writes it.
    public func appendJSONEscape(to out: inout String) {
        for unit in String(self).utf16 {
            let hex = String(unit, radix: 16)
            out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        }
    }
}
