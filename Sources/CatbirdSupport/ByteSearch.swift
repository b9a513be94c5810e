import CByteSearch

/// Substring search over bytes in time linear in the subject's and the needle's lengths: the C
/// library's `memmem` (glibc: the two-way algorithm of Crochemore and Perrin, O(n + m) for any
/// input; a naive search is O(n × m) on self-similar input such as a needle `a…ab` against a body
/// `a…a`, minutes for a 10 KB needle in a 1 MB body). Used wherever a pattern's bytes are looked
/// for in a request's bytes (body `contains`, the ASCII-case literal searches of ``ASCIICase``).
public enum ByteSearch {
    /// Whether `needle` occurs in `haystack`, byte for byte (an empty needle always does).
    public static func contains(_ needle: UnsafeRawBufferPointer, in haystack: UnsafeRawBufferPointer) -> Bool {
        guard !needle.isEmpty else { return true }
        guard haystack.count >= needle.count else { return false }
        return catbird_memmem_offset(haystack.baseAddress!, haystack.count, needle.baseAddress!, needle.count) >= 0
    }

    /// Whether `needle` occurs in `haystack`, byte for byte (an empty needle always does).
    public static func contains(_ needle: [UInt8], in haystack: [UInt8]) -> Bool {
        needle.withUnsafeBytes { needle in haystack.withUnsafeBytes { contains(needle, in: $0) } }
    }
}
