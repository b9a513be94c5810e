/// Percent-decoding (RFC 3986 §2.1) byte for byte, for the control routes' path segments and
/// query parameters and for file mock names: every byte decoded is kept, a leading U+FEFF
/// (`%EF%BB%BF`) too, which Foundation's `removingPercentEncoding` drops (tester finding
/// tester50a-F1: `DELETE /catbird/api/tenants/%EF%BB%BFvictim` dropped tenant `victim`).
public enum PercentDecoding {
    /// What a `%` that is not followed by two hex digits (`%ZZ`, a `%` at the end) does.
    public enum StrayPercent: Sendable {
        /// The whole text is refused: the decoding is nil.
        case refused
        /// It is kept as itself, as are the bytes after it.
        case kept
    }

    /// `text` with each `%XY` (two hex digits, either case) replaced by its byte, once (`%2541`
    /// is `%41`); with `plusAsSpace`, each `+` read as a space (the form encoding of a query).
    /// - Returns: the decoded bytes as text, or nil when they are not UTF-8 or, with
    ///   `stray` ``StrayPercent/refused``, a `%` starts no escape.
    public static func text(_ text: some StringProtocol, plusAsSpace: Bool = false, stray: StrayPercent) -> String? {
        let input = Array(text.utf8)
        guard input.contains(UInt8(ascii: "%")) || (plusAsSpace && input.contains(UInt8(ascii: "+"))) else { return String(text) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(input.count)
        var index = 0
        while index < input.count {
            let byte = input[index]
            index += 1
            if byte == UInt8(ascii: "%") {
                if index + 1 < input.count, let high = ASCIIByte.hexValue(input[index]), let low = ASCIIByte.hexValue(input[index + 1]) {
                    bytes.append(high << 4 | low)
                    index += 2
                } else if stray == .refused {
                    return nil
                } else {
                    bytes.append(byte)
                }
            } else {
                bytes.append(plusAsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
