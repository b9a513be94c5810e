import CatbirdSupport

/// A 404 reason's characters that do not show, or show as another (tester finding tester43a-F2:
/// since iOS 17 a formatted time holds U+202F NARROW NO-BREAK SPACE before AM/PM, and the
/// reason read `the body has "10:00 AM" there, not "10:00 AM"`; a zero-width space in a url
/// read `expected equal "/api/users", got "/api/users"`). Every space that is not ASCII's
/// (U+00A0, U+2007, U+202F, U+3000, …) and every default-ignorable code point (U+200B, U+200D,
/// U+2060, U+FEFF, U+00AD, …) in the reason is written as its code point, `<U+202F>`, so that
/// the two texts read differently. The near misses' JSON fields keep the values as they are.
extension NotFoundAnswer {
    /// Rewrites the reason written from `start` in `out` (JSON string text, its non-ASCII
    /// characters as themselves) with each look-alike character (``CatbirdSupport/Swift/Unicode/Scalar/isLookAlike``) as `<U+XXXX>`. A reason
    /// of ASCII bytes only, the usual one, is left after one pass over its bytes.
    static func markLookAlikes(from start: Int, in out: inout ByteWriter) {
        let hasNonASCII = out.withBytes { $0[start...].contains { $0 >= 0x80 } }
        guard hasNonASCII else { return }
        let text = out.withBytes { String(decoding: UnsafeBufferPointer(rebasing: $0[start...]), as: UTF8.self) }
        guard text.unicodeScalars.contains(where: \.isLookAlike) else { return }
        var marked = ""
        marked.unicodeScalars.reserveCapacity(text.unicodeScalars.count + 16)
        for scalar in text.unicodeScalars {
            if scalar.isLookAlike {
                marked += "<\(scalar.codePointText)>"
            } else {
                marked.unicodeScalars.append(scalar)
            }
        }
        out.truncate(to: start)
        out.append(utf8: marked)
    }
}
