extension PercentDecoding {
    /// RFC 3986's unreserved characters (§2.3): letters, digits, `-`, `.`, `_`, `~`.
    public static func isUnreserved(_ byte: UInt8) -> Bool {
        ASCIIByte.isLetter(byte) || ASCIIByte.isDigit(byte) || "-._~".utf8.contains(byte)
    }

    /// `text`'s bytes with each escape (`%` and two hex digits, either case) whose byte
    /// `decodes` takes replaced by that byte, and the other escapes kept: with
    /// `uppercasingKept`, their hex digits uppercased (RFC 3986 §6.2.2.1: `%2f` is `%2F`), else
    /// as written. One pass for every partial decoding: of unreserved characters (the normal
    /// form, ``normalizedEscapes(_:)``), of bytes past ASCII, of all but reserved characters.
    /// - Returns: the bytes (not checked to be UTF-8), or nil when `stray` is
    ///   ``StrayPercent/refused`` and a `%` starts no escape; with ``StrayPercent/kept`` such a
    ///   `%` is kept as itself.
    public static func bytes(
        _ text: some StringProtocol, decoding decodes: (UInt8) -> Bool, uppercasingKept: Bool, stray: StrayPercent
    ) -> [UInt8]? {
        let input = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(input.count)
        var index = 0
        while index < input.count {
            let byte = input[index]
            guard byte == UInt8(ascii: "%") else {
                output.append(byte)
                index += 1
                continue
            }
            guard index + 2 < input.count, let high = ASCIIByte.hexValue(input[index + 1]), let low = ASCIIByte.hexValue(input[index + 2]) else {
                if stray == .refused { return nil }
                output.append(byte)
                index += 1
                continue
            }
            let decoded = high << 4 | low
            if decodes(decoded) {
                output.append(decoded)
            } else if uppercasingKept {
                output += [byte, ASCIICase.upper(input[index + 1]), ASCIICase.upper(input[index + 2])]
            } else {
                output += input[index..<index + 3]
            }
            index += 3
        }
        return output
    }

    /// `text`'s bytes in RFC 3986 §6.2.2's normal form of percent-encoding: each escape of an
    /// unreserved character decoded (`%72` is `r`, `%7e` is `~`: the same URI either way,
    /// §6.2.2.2), the hex digits of the other escapes uppercased (`%2f` is `%2F`, §6.2.2.1); a
    /// `%` that starts no escape kept, as are all other bytes.
    public static func normalizedEscapes(_ text: some StringProtocol) -> [UInt8] {
        bytes(text, decoding: isUnreserved, uppercasingKept: true, stray: .kept)!
    }
}
