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

    /// The upper-case hex digit (`0`–`9`, `A`–`F`) of `value`'s low four bits.
    @inlinable
    public static func upperHexDigit(_ value: UInt8) -> UInt8 {
        let nibble = value & 0x0F
        return nibble < 10 ? 0x30 &+ nibble : 0x41 &+ nibble &- 10
    }

    /// Appends `byte` percent-encoded, `%` and two upper-case hex digits (RFC 3986 §2.1: `%1F`).
    @inlinable
    public static func appendPercentEncoded(_ byte: UInt8, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "%"))
        out.append(upperHexDigit(byte >> 4))
        out.append(upperHexDigit(byte))
    }

    /// `byte`'s two upper-case hex digits as text (`1F`).
    public static func upperHex(_ byte: UInt8) -> String {
        String(decoding: [upperHexDigit(byte >> 4), upperHexDigit(byte)], as: UTF8.self)
    }
}
