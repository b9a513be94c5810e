#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// ASCII case folding: the one rule Catbird uses wherever letter case does not count (header
/// names, RFC 9110 §5.1; SQL column names; the byte matchers' case-insensitive comparisons,
/// docs/matching.md#pattern-kinds). Only `A`–`Z` are folded; every other byte, non-ASCII
/// letters included, is compared exactly.
///
/// The byte functions are `@inlinable`: the matchers call them per byte of every subject, from
/// other modules, and a call per byte would cost more than the comparison.
public enum ASCIICase {
    /// `byte` with `A`–`Z` lowered; every other byte as is.
    @inlinable
    public static func lower(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }

    /// `byte` with `a`–`z` raised; every other byte as is.
    @inlinable
    public static func upper(_ byte: UInt8) -> UInt8 {
        byte >= 0x61 && byte <= 0x7A ? byte & ~0x20 : byte
    }

    /// Whether `scalar` is an ASCII letter or digit.
    public static func isAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && (("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar))
    }

    /// Whether `literal` (already lowered by ``lower(_:)``) occurs in `subject` with ASCII case
    /// folded: at its start when `anchoredStart`, ending at its end when `anchoredEnd` (both:
    /// the whole subject), anywhere otherwise. An empty literal occurs everywhere.
    public static func find(
        _ literal: [UInt8], in subject: UnsafeBufferPointer<UInt8>, anchoredStart: Bool = false, anchoredEnd: Bool = false
    ) -> Bool {
        guard subject.count >= literal.count else { return false }
        let lastStart = subject.count - literal.count
        if anchoredStart && anchoredEnd && lastStart != 0 { return false }
        if !anchoredStart && !anchoredEnd && literal.count > 8 && subject.count > 1024 {
            return findLinear(literal, in: subject)
        }
        var start = anchoredEnd ? lastStart : 0
        let end = anchoredStart ? 0 : lastStart
        while start <= end {
            var offset = 0
            while offset < literal.count, lower(subject[start + offset]) == literal[offset] { offset += 1 }
            if offset == literal.count { return true }
            start += 1
        }
        return false
    }

    /// The unanchored ``find(_:in:anchoredStart:anchoredEnd:)`` in time linear in both lengths:
    /// `subject` lowered into a scratch buffer, then ``ByteSearch``. The byte-by-byte loop is
    /// O(subject × literal) on self-similar input; it is kept for short literals or subjects
    /// (at most 1,024 × 8 bytes compared per start, no allocation), the usual url and header.
    @usableFromInline
    static func findLinear(_ literal: [UInt8], in subject: UnsafeBufferPointer<UInt8>) -> Bool {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: subject.count) { lowered in
            for index in subject.indices { lowered[index] = lower(subject[index]) }
            return literal.withUnsafeBytes { ByteSearch.contains($0, in: UnsafeRawBufferPointer(lowered)) }
        }
    }
}

extension String {
    /// This text with ASCII capitals `A`–`Z` lowered and every other byte untouched.
    public func asciiLowercased() -> String {
        guard utf8.contains(where: { ASCIICase.lower($0) != $0 }) else { return self }
        return String(decoding: utf8.map(ASCIICase.lower), as: UTF8.self)
    }

    /// Whether this text equals `other` when ASCII capitals are folded (see ``asciiLowercased()``).
    /// Lengths are compared first, and the bytes in place when both are stored contiguously
    /// (native strings are): header lookups call this for every field of every request.
    public func equalsIgnoringASCIICase(_ other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        let contiguous = utf8.withContiguousStorageIfAvailable { mine in
            other.utf8.withContiguousStorageIfAvailable { theirs in
                // The same bytes (the usual case: spelled as expected) compared in one go.
                if mine.isEmpty || memcmp(mine.baseAddress!, theirs.baseAddress!, mine.count) == 0 { return true }
                for index in mine.indices where mine[index] != theirs[index] {
                    guard ASCIICase.lower(mine[index]) == ASCIICase.lower(theirs[index]) else { return false }
                }
                return true
            }
        }
        if let contiguous = contiguous ?? nil { return contiguous }
        return utf8.elementsEqual(other.utf8) { ASCIICase.lower($0) == ASCIICase.lower($1) }
    }
}
