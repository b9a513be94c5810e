extension PercentDecoding {
    /// RFC 3986's unreserved characters (§2.3): letters, digits, `-`, `.`, `_`, `~`.
    public static func isUnreserved(_ byte: UInt8) -> Bool {
        ASCIIByte.isLetter(byte) || ASCIIByte.isDigit(byte) || "-._~".utf8.contains(byte)
    }

    /// `text`'s bytes in RFC 3986 §6.2.2's normal form of percent-encoding: each escape of an
    /// unreserved character decoded (`%72` is `r`, `%7e` is `~`: the same URI either way,
    /// §6.2.2.2), the hex digits of the other escapes uppercased (`%2f` is `%2F`, §6.2.2.1); a
    /// `%` that starts no escape kept, as are all other bytes.
    public static func normalizedEscapes(_ text: some StringProtocol) -> [UInt8] {
        let input = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(input.count)
        var index = 0
        while index < input.count {
            let byte = input[index]
            if byte == UInt8(ascii: "%"), index + 2 < input.count,
               let high = ASCIIByte.hexValue(input[index + 1]), let low = ASCIIByte.hexValue(input[index + 2]) {
                let decoded = high << 4 | low
                output += isUnreserved(decoded) ? [decoded] : [byte, ASCIICase.upper(input[index + 1]), ASCIICase.upper(input[index + 2])]
                index += 3
            } else {
                output.append(byte)
                index += 1
            }
        }
        return output
    }
}
