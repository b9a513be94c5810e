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
}
