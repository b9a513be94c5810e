import CatbirdSupport
import CatbirdWire
import Foundation

/// What the body patterns of one request have read of its body, kept for every other mock and
/// the near-miss comparison of the same request (``RequestBodyScope``), and the meter that keeps
/// their work within the request's time (docs/matching.md#evaluation-budget):
///
/// - the body as UTF-8 text, validated once (`regexp`, `jsonPath`);
/// - the body read as JSON, parsed once (`json`);
/// - the body parsed once for `jsonPath` (``JSONPathDocument``), and the field each distinct
///   JSON path finds in it, looked up once per path (a suite's 2,000 mocks on 2,000 paths parse
///   the body once, not 2,000 times).
///
/// A pass over the body not read before (a parse, a `contains` or `regexp` search, an `equal`
/// comparison of equal lengths) is admitted by ``admit(_:until:slice:)``: within a worker's
/// slice, none over ``workerPassBytes`` and none once `deadline` has passed (the clock is read
/// once per ``clockEveryBytes`` of passes); with the whole budget (the matching lane) and in a
/// body-lane scope (``admitsEveryPass``: matching and near misses), always. A pass refused is the body pattern's
/// ``MatchOutcome/outOfTime``, so a request whose body work overruns its worker's slice is
/// matched again on the matching lane (docs/tenancy.md#slow-regular-expressions).
///
/// Used on one thread only: the scope that made it (``RequestBodyScope/reading(_:_:)``).
final class RequestBodyReading {
    /// The request body's bytes (retained, so ``holds(_:)``'s identity check is sound: the
    /// storage cannot be freed and reused for another body while it is kept here).
    let bytes: [UInt8]
    private var text: String??
    private var json: ExactJSON??
    private var fields: [String: JSONPathReader.Field] = [:]
    private var document: JSONPathDocument?
    private var documentRead = false
    private var bytesSinceClock = 0
    /// Whether a pass was refused for the body's size within a slice (over ``workerPassBytes``):
    /// what sends the request to the matching lane, named in its 429 when the lane is full.
    private(set) var refusedForSize = false
    /// Whether every pass runs, within a slice too: the body lane's scope
    /// (``RequestBodyScope/reading(_:admittingEveryPass:_:)``), where a pass's time is bounded
    /// by the body's size and a 404's near misses compare the body as the matching lane's do.
    let admitsEveryPass: Bool

    /// The longest pass over a body a worker makes within its slice: 64 KiB (a JSON parse of
    /// that by ``JSONBodyParser`` takes about 1 ms; a larger body's patterns are matched on the
    /// matching lane).
    static let workerPassBytes = 64 * 1024
    /// Bytes of passes between two readings of the clock: 16 KiB.
    static let clockEveryBytes = 16 * 1024

    /// Refused: the pass may not start (``admit(_:until:slice:)``).
    struct Refused: Error {}

    init(_ bytes: [UInt8], admitsEveryPass: Bool = false) {
        self.bytes = bytes
        self.admitsEveryPass = admitsEveryPass
    }

    /// Whether `body` is this reading's body: the same storage (an array that shares it has
    /// the same bytes), or both empty.
    func holds(_ body: [UInt8]) -> Bool {
        guard body.count == bytes.count else { return false }
        guard !body.isEmpty else { return true }
        return body.withUnsafeBufferPointer { given in
            bytes.withUnsafeBufferPointer { kept in given.baseAddress == kept.baseAddress }
        }
    }

    /// Admits one pass over the whole body (see the type's documentation).
    /// - Throws: ``Refused`` within a slice for a body over ``workerPassBytes``, or when
    ///   `deadline` has passed.
    func admit(until deadline: ContinuousClock.Instant, slice: RegexpSlice) throws(Refused) {
        // With the whole budget (the matching lane) a pass always runs: these passes are linear
        // in the body, read once per request, and delay only the tenant's own lane; refusing one
        // once 100 ms had passed made `equal`, `contains`, `json` and `jsonPath` answers depend
        // on the machine's load (review of the session's change: 50 jsonPath mocks and a 5 MB
        // body matching the 50th answered 404 on the lane).
        try admit(costing: bytes.count, until: deadline, slice: slice)
    }

    /// Admits work reading `cost` bytes (a pass over the body: its size), as ``admit(until:slice:)``.
    private func admit(costing cost: Int, until deadline: ContinuousClock.Instant, slice: RegexpSlice) throws(Refused) {
        guard slice.isSlice, !admitsEveryPass else { return }
        if bytes.count > Self.workerPassBytes {
            refusedForSize = true
            throw Refused()
        }
        bytesSinceClock += max(cost, 1)
        guard bytesSinceClock >= Self.clockEveryBytes else { return }
        bytesSinceClock = 0
        if ContinuousClock.now >= deadline { throw Refused() }
    }

    /// `contains` searches made on this body so far, and its pair index (``BodyPairIndex``) once built.
    private var containsSearches = 0
    private var pairs: BodyPairIndex?
    /// Searches of one body before its pair index is built: 4 (a request matched against a few
    /// `contains` mocks searches its body a few times, cheaper than indexing it).
    static let searchesBeforeIndex = 4

    /// Whether the body contains `needle` (`contains`): a search of the body, admitted as one
    /// pass (``admit(until:slice:)``); from the ``searchesBeforeIndex``-th search of the body on
    /// (bodies up to ``BodyPairIndex/maximumBodyBytes``), a look-up in the body's pair index,
    /// built once as one pass and each look-up metered by the bytes it reads.
    /// - Throws: ``Refused`` as ``admit(until:slice:)``.
    func contains(_ needle: [UInt8], until deadline: ContinuousClock.Instant, slice: RegexpSlice) throws(Refused) -> Bool {
        containsSearches += 1
        if pairs == nil, containsSearches > Self.searchesBeforeIndex, needle.count >= 2, bytes.count <= BodyPairIndex.maximumBodyBytes {
            try admit(until: deadline, slice: slice)
            pairs = bytes.withUnsafeBufferPointer { BodyPairIndex($0) }
        }
        if let pairs {
            let looked = needle.withUnsafeBufferPointer { needle in bytes.withUnsafeBufferPointer { pairs.contains(needle, in: $0) } }
            if let looked {
                try admit(costing: looked.work, until: deadline, slice: slice)
                return looked.found
            }
        }
        try admit(until: deadline, slice: slice)
        return ByteSearch.contains(needle, in: bytes)
    }

    /// The body as text; nil when it is not UTF-8.
    func utf8Text(until deadline: ContinuousClock.Instant, slice: RegexpSlice) throws(Refused) -> String? {
        if let text { return text }
        try admit(until: deadline, slice: slice)
        let read = String(validating: bytes, as: UTF8.self)
        text = .some(read)
        return read
    }

    /// The body read as JSON; nil when it is not JSON.
    func jsonValue(until deadline: ContinuousClock.Instant, slice: RegexpSlice) throws(Refused) -> ExactJSON? {
        if let json { return json }
        try admit(until: deadline, slice: slice)
        let read = JSONBodyParser.value(of: bytes)
        json = .some(read)
        return read
    }

    /// The body as JSON if a `json` pattern read it already (nil: not read; `.some(nil)`: not
    /// JSON), with no pass over the body.
    var jsonRead: ExactJSON?? { json }

    /// What `path` found in the body if a `jsonPath` pattern read it already, with no pass.
    func fieldRead(at path: String) -> JSONPathReader.Field? { fields[path] }

    /// What `path` finds in the body (``JSONPathReader/field(at:in:)``); `.notJSON` for a body
    /// that is not UTF-8. The body is parsed once (``JSONPathDocument``), by the first path
    /// read; each path is then looked up in that parse.
    /// - Throws: ``Refused`` as ``admit(until:slice:)`` does for the parse, or when the values
    ///   read for this request's fields already total ``fieldValueAllowance``.
    func field(at path: String, until deadline: ContinuousClock.Instant, slice: RegexpSlice) throws(Refused) -> JSONPathReader.Field {
        if let field = fields[path] { return field }
        // Not JSON is kept per path too, so a 404 can say so (``fieldRead(at:)``; try11 T11-F4:
        // a body nested too deep got only "body differs").
        guard try utf8Text(until: deadline, slice: slice) != nil else {
            fields[path] = .notJSON
            return .notJSON
        }
        if !documentRead {
            try admit(until: deadline, slice: slice)
            document = JSONPathDocument(bytes)
            documentRead = true
        }
        guard document != nil else {
            fields[path] = .notJSON
            return .notJSON
        }
        guard let field = document?.field(at: path, allowance: fieldValueAllowance) else { throw Refused() }
        fields[path] = field
        return field
    }

    /// The bytes of field values (their JSON text) that one request's `jsonPath` patterns may
    /// read: 4 times the body's bytes, plus 1 MiB. Each field's value is read once, but nested
    /// paths (`$.a`, `$.a.b`, `$.a.b.c` …) read the same bytes again, so without this 2,000
    /// nested paths into a 2 MB body would read 4 GB (docs/matching.md#evaluation-budget).
    var fieldValueAllowance: Int { 4 * bytes.count + 1024 * 1024 }
}

/// The request whose body the body patterns evaluated on this thread read through one
/// ``RequestBodyReading``: set by the server around serving one request (its mocks, the
/// default tenant's, its near misses). A body pattern evaluated on other bytes (a journal
/// count's rows) or outside a scope reads the body itself, as before, with no meter.
public enum RequestBodyScope {
    private static let current = PerThreadMemo<RequestBodyReading?> { nil }

    /// Runs `work` with `body` as the request body read once for every body pattern that
    /// `work` evaluates on this thread against the same bytes (the same array). With
    /// `admittingEveryPass` (the body lane: docs/tenancy.md#large-bodies), every pass over the
    /// body runs, within a slice too (``RequestBodyReading/admitsEveryPass``).
    public static func reading<Result>(_ body: [UInt8], admittingEveryPass: Bool = false, _ work: () -> Result) -> Result {
        let reading = RequestBodyReading(body, admitsEveryPass: admittingEveryPass)
        let previous = current.with { slot in
            defer { slot = reading }
            return slot
        }
        defer { current.with { $0 = previous } }
        return work()
    }

    /// Whether a body pattern evaluated in this thread's scope was refused a pass over the
    /// request's body for its size (over 64 KiB within a worker's slice): the request must be
    /// matched on the matching lane for its body, not (only) for its regular expressions. False
    /// outside a scope.
    public static var refusedLargeBody: Bool {
        current.with { $0?.refusedForSize ?? false }
    }

    /// The longest body a worker's slice reads for body patterns: 64 KiB (larger ones are read on
    /// the matching lane, docs/matching.md#evaluation-budget).
    public static var workerPassBytes: Int { RequestBodyReading.workerPassBytes }

    /// The reading of `body` in this thread's scope, or nil (no scope, or other bytes).
    static func reading(of body: [UInt8]) -> RequestBodyReading? {
        guard let reading = current.with({ $0 }), reading.holds(body) else { return nil }
        return reading
    }
}
