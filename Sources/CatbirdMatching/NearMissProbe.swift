/// An unmatched request as the near-miss distance looks at it, prepared once and compared with
/// many patterns (``CompiledRequestPattern/compare(_:headerValue:body:urlMatches:until:fields:)``,
/// docs/matching.md#near-misses).
public struct NearMissProbe: Sendable {
    /// The request method as received.
    public let method: String
    /// ``methodKey(_:)`` of ``method``.
    public let methodKey: UInt64
    /// The request-target as received.
    public let target: String
    /// The target's bytes (cut to ``CompiledRequestPattern/comparedURLLength``), ready for
    /// edit distances.
    public let url: EditDistanceProbe
    /// The cut target's byte classes.
    public let histogram: ByteHistogram

    /// Prepares a request's method and target.
    public init(method: String, target: String) {
        self.method = method
        methodKey = Self.methodKey(method)
        self.target = target
        url = EditDistanceProbe(target, limit: CompiledRequestPattern.comparedURLLength)
        histogram = ByteHistogram(url.bytes)
    }

    /// A method of at most 7 bytes as a number (its bytes and its length), so that two such
    /// methods are equal exactly when their numbers are; 0 for a longer (or empty) method,
    /// meaning "unknown": a bound may then not assume the methods differ.
    /// (A plain loop over the bytes: `enumerated().reduce` took about 370 instructions per 404,
    /// counted with callgrind.)
    public static func methodKey(_ method: String) -> UInt64 {
        var key: UInt64 = 0
        var count: UInt64 = 0
        for byte in method.utf8 {
            guard count < 7 else { return 0 }
            key |= UInt64(byte) << (8 * count)
            count += 1
        }
        return count == 0 ? 0 : key | count << 56
    }

    /// The method field's distance to a pattern whose method has `key`, as far as the keys
    /// tell: 1 when both are known and differ, else 0 (a lower bound).
    @inlinable @inline(__always)
    public func methodDistanceBound(_ key: UInt64) -> Double {
        key != methodKey && key != 0 && methodKey != 0 ? 1 : 0
    }

    /// A lower bound of the url field's distance to every url pattern that does not match the
    /// target and whose text has at least `shortest` bytes and byte classes within `classes`
    /// (one pattern's histogram, or the union of several): the bag distance over byte classes
    /// (``ByteHistogram``) in the url formula.
    @inlinable @inline(__always)
    public func urlDistanceBound(classes: ByteHistogram, shortest: Int) -> Double {
        let length = url.bytes.count
        let longer = max(length, shortest)
        // A cut target of 128 bytes may have had one byte of a class counted out (counts stop at 127).
        let common = histogram.common(with: classes) + (length == CompiledRequestPattern.comparedURLLength ? 1 : 0)
        return CompiledRequestPattern.urlDistance(edits: max(longer - common, 0), longer: longer)
    }
}
