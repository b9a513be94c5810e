import CatbirdSupport

extension HTTPHeaders {
    /// One request's header fields looked up by name many times: matching asks for the name of
    /// every header pattern of every mock it tries (docs/matching.md#how-matching-scales), so
    /// a tenant with thousands of catch-all mocks with header patterns, hit by a request with
    /// hundreds of fields, cost mocks × patterns × fields name comparisons per request, all on
    /// the shared workers (tester finding try8b F10: 2,000 mocks × 2 patterns × 300 fields,
    /// 19-24 ms of a worker per request).
    ///
    /// ``first(_:)`` answers as ``HTTPHeaders/first(_:)`` does (names compared with ASCII case
    /// folded, RFC 9110 §5.1; the first of repeated fields), by a search of the fields for the
    /// first lookup and while the request has at most ``linearLimit`` fields, else from an
    /// index of the fields by folded name, built once, at the second lookup: O(1) per lookup
    /// after O(fields) once.
    ///
    /// A value, not shared: made per request and used on one thread (captured by the matching
    /// closure as a `var`; no allocation while the index is not built).
    public struct Lookup {
        /// Fields searched one by one at most: 16 (a usual request; at most 16 length checks
        /// per lookup).
        public static let linearLimit = 16

        private let headers: HTTPHeaders
        /// Index in ``HTTPHeaders/fields`` of the first field of each folded name; nil until built.
        private var firstIndex: [FoldedName: Int]?
        /// Whether a lookup was made already (the index is built at the second).
        private var looked = false

        /// Looks up `headers`' fields (their order as received).
        public init(_ headers: HTTPHeaders) {
            self.headers = headers
        }

        /// The first value of the field called `name` (compared with ASCII case folded), or nil:
        /// always what `headers.first(name)` says.
        public mutating func first(_ name: String) -> String? {
            if let firstIndex { return firstIndex[FoldedName(name)].map { headers.fields[$0].value } }
            guard looked, headers.fields.count > Self.linearLimit else {
                looked = true
                return headers.first(name)
            }
            var index: [FoldedName: Int] = [:]
            index.reserveCapacity(headers.fields.count)
            // Backwards, so that the first field of a repeated name is the one kept.
            for position in headers.fields.indices.reversed() { index[FoldedName(headers.fields[position].name)] = position }
            firstIndex = index
            return index[FoldedName(name)].map { headers.fields[$0].value }
        }
    }
}

/// A header name as a dictionary key with ASCII case folded (``ASCIICase``): equal when
/// ``Swift/String/equalsIgnoringASCIICase(_:)`` says so, hashed on the folded UTF-8 bytes (so
/// no lowered copy of the name is made).
struct FoldedName: Hashable {
    let name: String

    init(_ name: String) {
        self.name = name
    }

    static func == (lhs: FoldedName, rhs: FoldedName) -> Bool {
        lhs.name.equalsIgnoringASCIICase(rhs.name)
    }

    func hash(into hasher: inout Hasher) {
        // Eight folded bytes per word, then the length of the last, partial word.
        var word: UInt64 = 0
        var shift: UInt64 = 0
        for byte in name.utf8 {
            word |= UInt64(ASCIICase.lower(byte)) << shift
            shift += 8
            if shift == 64 {
                hasher.combine(word)
                (word, shift) = (0, 0)
            }
        }
        hasher.combine(word)
        hasher.combine(shift)
    }
}
