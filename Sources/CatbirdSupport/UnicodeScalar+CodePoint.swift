extension Unicode.Scalar {
    /// The scalar's code point as Unicode writes it, at least four hex digits: `U+000A` for a
    /// line feed, `U+212A` for KELVIN SIGN, `U+1F600` for 😀. How a reason names a character
    /// that may not show, or that reads like another.
    public var codePointText: String {
        let hex = String(value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
