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
    /// Lengths are compared first, and the bytes in place when both are stored contiguously
    /// (native strings are): header lookups call this for every field of every request.
    public func equalsIgnoringASCIICase(_ other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        let contiguous = utf8.withContiguousStorageIfAvailable { mine in
            other.utf8.withContiguousStorageIfAvailable { theirs in
                for index in mine.indices where mine[index] != theirs[index] {
                    guard Self.asciiLower(mine[index]) == Self.asciiLower(theirs[index]) else { return false }
                }
                return true
            }
        }
        if let contiguous = contiguous ?? nil { return contiguous }
        return utf8.elementsEqual(other.utf8) { Self.asciiLower($0) == Self.asciiLower($1) }
    }

    private static func isASCIICapital(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")
    }

    private static func asciiLower(_ byte: UInt8) -> UInt8 {
        isASCIICapital(byte) ? byte + 32 : byte
    }
}
