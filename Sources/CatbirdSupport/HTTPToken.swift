/// RFC 9110 §5.6.2 tokens: what a method and a field name are made of.
public enum HTTPToken {
    /// The tchars other than letters and digits.
    public static let punctuation = "!#$%&'*+-.^_`|~"

    /// Whether `byte` is a tchar: a letter, a digit or one of ``punctuation``. A bit test
    /// (asked for every byte of every field name of every request): bit n of ``tcharsBelow64``
    /// for byte n < 64, bit n − 64 of ``tcharsFrom64`` for 64 ≤ n < 128.
    @inlinable
    public static func isTokenCharacter(_ byte: UInt8) -> Bool {
        byte < 64 ? tcharsBelow64 >> byte & 1 != 0 : byte < 128 && tcharsFrom64 >> (byte &- 64) & 1 != 0
    }

    /// Whether `bytes` is a token: not empty, every byte a tchar.
    @inlinable
    public static func isToken(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !bytes.isEmpty else { return false }
        for byte in bytes where !isTokenCharacter(byte) { return false }
        return true
    }

    /// Bytes 0–63 that are tchars: `!#$%&'*+-.` and the digits (a test checks it against
    /// the definition).
    @inlinable static var tcharsBelow64: UInt64 { 0x03FF_6CFA_0000_0000 }
    /// Bytes 64–127 that are tchars: the letters and ``^_`|~``.
    @inlinable static var tcharsFrom64: UInt64 { 0x57FF_FFFF_C7FF_FFFE }
}
