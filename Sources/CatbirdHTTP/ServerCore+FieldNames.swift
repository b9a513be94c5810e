import CatbirdWire
#if canImport(Glibc)
import Glibc
#endif

extension ServerCore {
    /// A field name whose bytes are a token (ASCII, ``HTTPToken/isToken(_:)``) as a `String`:
    /// the wire's own constant when it is `X-Catbird-Parallel-Id` as spelled there (sent with
    /// every tenant's request, docs/tenancy.md#tenant-of-a-request; a literal, so no allocation
    /// for its 21 bytes, and later comparisons with the same constant find the same storage at
    /// once), else the bytes decoded.
    static func tokenFieldName(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        if bytes.count == parallelIDFieldName.count,
           parallelIDFieldName.withUnsafeBufferPointer({ memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) == 0 }) {
            return CatbirdAction.parallelIdHeaderField
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static let parallelIDFieldName = Array(CatbirdAction.parallelIdHeaderField.utf8)
}
