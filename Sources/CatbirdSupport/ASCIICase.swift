/// ASCII case folding: the one rule Catbird uses wherever letter case does not count (header
/// names, RFC 9110 §5.1; SQL column names). Only `A`–`Z` are folded; every other byte,
/// non-ASCII letters included, is compared exactly.
extension String {
    /// This text with ASCII capitals `A`–`Z` lowered and every other byte untouched.
    public func asciiLowercased() -> String {
        guard utf8.contains(where: Self.isASCIICapital) else { return self }
        return String(decoding: utf8.map(Self.asciiLower), as: UTF8.self)
    }

    /// Whether this text equals `other` when ASCII capitals are folded (see ``asciiLowercased()``).
    public func equalsIgnoringASCIICase(_ other: String) -> Bool {
        utf8.elementsEqual(other.utf8) { Self.asciiLower($0) == Self.asciiLower($1) }
    }

    private static func isASCIICapital(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")
    }

    private static func asciiLower(_ byte: UInt8) -> UInt8 {
        isASCIICapital(byte) ? byte + 32 : byte
    }
}
