import CByteSearch

/// Substring search over bytes in time linear in the subject's and the needle's lengths: the C
/// library's `memmem` (glibc: the two-way algorithm of Crochemore and Perrin, O(n + m) for any
/// input; a naive search is O(n × m) on self-similar input such as a needle `a…ab` against a body
/// `a…a`, minutes for a 10 KB needle in a 1 MB body). Used wherever a pattern's bytes are looked
/// for in a request's bytes (body `contains`, the ASCII-case literal searches of ``ASCIICase``, the journal's url markers).
public enum ByteSearch {
    /// Whether `needle` occurs in `haystack`, byte for byte (an empty needle always does).
    public static func contains(_ needle: UnsafeRawBufferPointer, in haystack: UnsafeRawBufferPointer) -> Bool {
        firstOffset(of: needle, in: haystack) != nil
    }

    /// The offset in `haystack` (in bytes from its start) of the first occurrence of `needle`
    /// that starts at or after `start`, or nil when there is none; an empty needle occurs at
    /// `start`. `start` must be within `0...haystack.count`.
    public static func firstOffset(of needle: UnsafeRawBufferPointer, in haystack: UnsafeRawBufferPointer, from start: Int = 0) -> Int? {
        precondition(start >= 0 && start <= haystack.count, "ByteSearch.firstOffset: start \(start) outside 0...\(haystack.count)")
        guard !needle.isEmpty else { return start }
        guard haystack.count - start >= needle.count else { return nil }
        let found = catbird_memmem_offset(haystack.baseAddress! + start, haystack.count - start, needle.baseAddress!, needle.count)
        return found < 0 ? nil : start + found
    }

    /// Whether `needle` occurs in `haystack`, byte for byte (an empty needle always does).
    public static func contains(_ needle: [UInt8], in haystack: [UInt8]) -> Bool {
        needle.withUnsafeBytes { needle in haystack.withUnsafeBytes { contains(needle, in: $0) } }
    }
}
