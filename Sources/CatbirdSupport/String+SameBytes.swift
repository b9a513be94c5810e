#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension String {
    /// Whether `self` and `other` hold the same UTF-8 bytes: lengths first (O(1) for a native
    /// string), then the bytes in place by `memcmp`. Never `String`'s `==`, which compares by
    /// Unicode canonical equivalence (NFC `café` equals NFD `cafe\u{301}`, the KELVIN SIGN
    /// `\u{212A}` equals `K`): what was received must be told apart byte for byte wherever it is
    /// kept or reused (tenant ids, ``ExactString``, the journal's reused header JSON, a kept
    /// 404; tester finding tester38a-F4). Not `utf8.elementsEqual`, whose generic loop took
    /// about 177 instructions to compare 5 bytes (callgrind).
    public func hasSameBytes(as other: String) -> Bool {
        let left = utf8
        let right = other.utf8
        let count = left.count
        guard count == right.count else { return false }
        guard count > 0 else { return true }
        let inPlace = left.withContiguousStorageIfAvailable { leftBytes in
            right.withContiguousStorageIfAvailable { rightBytes in
                leftBytes.baseAddress == rightBytes.baseAddress || memcmp(leftBytes.baseAddress!, rightBytes.baseAddress!, count) == 0
            }
        }
        return (inPlace ?? nil) ?? left.elementsEqual(right)
    }
}

extension Optional where Wrapped == String {
    /// Both nil, or both strings with the same UTF-8 bytes (``Swift/String/hasSameBytes(as:)``).
    public func hasSameBytes(as other: String?) -> Bool {
        switch (self, other) {
        case (nil, nil): true
        case let (left?, right?): left.hasSameBytes(as: right)
        default: false
        }
    }
}
