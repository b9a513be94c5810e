/// ASCII byte classes, written once for the parsers of names and numbers (RFC 5234 B.1's
/// `ALPHA`, `DIGIT`, `HEXDIG`): only ASCII bytes belong to them, never a letter or digit of
/// another script (Swift's `Character.isHexDigit` also takes the fullwidth `１` and `ｆ`).
public enum ASCIIByte {
    /// `0`–`9`.
    @inlinable
    public static func isDigit(_ byte: UInt8) -> Bool {
        byte &- 0x30 < 10
    }

    /// `A`–`Z` and `a`–`z`.
    @inlinable
    public static func isLetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) &- 0x61 < 26
    }

    /// `0`–`9`, `A`–`F` and `a`–`f`.
    @inlinable
    public static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte | 0x20) &- 0x61 < 6
    }

    /// The value (0–15) of a hex digit (``isHexDigit(_:)``), nil for any other byte.
    @inlinable
    public static func hexValue(_ byte: UInt8) -> UInt8? {
        isDigit(byte) ? byte &- 0x30 : (byte | 0x20) &- 0x61 < 6 ? (byte | 0x20) &- 0x61 &+ 10 : nil
    }
}
