import CatbirdSupport
import Foundation

/// One journaled request and the response it got (`GET /catbird/api/requests`).
public struct CatbirdRequest: Codable, Hashable, Sendable {
    /// One side of the exchange: headers and body.
    public struct Message: Codable, Hashable, Sendable {
        /// The response status; nil on the request side.
        public var status: Int?

        /// Header fields, name → value; a name sent more than once has its values joined by `, `.
        public var headers: [String: String]

        /// The header fields one by one, a name sent more than once once per value, in the order
        /// received; the names sorted ASCII case-insensitively (the journal keeps no order between
        /// different names). Only in the answer of `GET /catbird/api/requests/{id}`
        /// (docs/protocol.md#journal): ``headers`` cannot tell `X-A: a, b` from `X-A: a` and
        /// `X-A: b` (tester finding T18A-F5). Nil elsewhere and from servers that predate it; the
        /// Swift client's calls (listings, `find`, `waitForRequest`) never ask that route, so
        /// from them it is nil (tester finding tester57b-F11).
        public var headerFields: [HeaderField]?

        /// The stored body bytes (empty for none). Only the first bytes are kept when
        /// ``bodyTruncated`` is true (the server's `--journal-body-limit`, 64 KiB by default).
        public var body: Data

        /// The full body size in bytes, even when the stored body is truncated.
        public var bodySize: Int

        /// Whether ``body`` holds only a prefix of the body.
        public var bodyTruncated: Bool

        /// The stored body as text, read by the charset its `Content-Type` declares
        /// (``BodyText``: UTF-8 when none; ISO-8859-1 byte by byte); nil when it is not valid
        /// in that charset or the charset is another one.
        public var bodyText: String? { BodyText.text(of: body, contentType: header("Content-Type")) }

        /// The value of a header, its name compared case-insensitively.
        public func header(_ name: String) -> String? {
            headers.first { $0.key.equalsIgnoringASCIICase(name) }?.value
        }

        /// A message.
        ///
        /// - Parameters:
        ///   - status: the response status; nil for a request.
        ///   - headers: header fields.
        ///   - body: the stored body bytes.
        ///   - bodySize: the full body size in bytes; `body.count` when nil.
        ///   - bodyTruncated: whether `body` is a prefix only.
        ///   - headerFields: the header fields one by one (``headerFields``); nil leaves them out.
        public init(
            status: Int? = nil, headers: [String: String] = [:], body: Data = Data(), bodySize: Int? = nil, bodyTruncated: Bool = false,
            headerFields: [HeaderField]? = nil
        ) {
            self.status = status
            self.headers = headers
            self.headerFields = headerFields
            self.body = body
            self.bodySize = bodySize ?? body.count
            self.bodyTruncated = bodyTruncated
        }

        private enum CodingKeys: String, CodingKey {
            case status, headers, headerFields, body, bodyBase64, bodySize, bodyTruncated
        }

        /// Reads the server's shape: the body from `bodyBase64` (absent or null for none).
        ///
        /// - Throws: `DecodingError` for a missing field or invalid base64.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            status = try container.decodeIfPresent(Int.self, forKey: .status)
            headers = try container.decodeIfPresent([String: String].self, forKey: .headers) ?? [:]
            headerFields = try container.decodeIfPresent([HeaderField].self, forKey: .headerFields)
            if let base64 = try container.decodeIfPresent(String.self, forKey: .bodyBase64) {
                guard let bytes = Data(strictBase64: base64) else {
                    throw DecodingError.dataCorruptedError(forKey: .bodyBase64, in: container, debugDescription: "not valid base64")
                }
                body = bytes
            } else {
                body = Data()
            }
            bodySize = try container.decode(Int.self, forKey: .bodySize)
            bodyTruncated = try container.decode(Bool.self, forKey: .bodyTruncated)
        }

        /// Writes the server's shape: `body` the stored body as text (``bodyText``) when it has
        /// one, `bodyBase64` the stored bytes; both left out for an empty body; `headerFields`
        /// only when set.
        ///
        /// - Throws: whatever the encoder throws (a JSONEncoder never does for this type).
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(status, forKey: .status)
            try container.encode(headers, forKey: .headers)
            try container.encodeIfPresent(headerFields, forKey: .headerFields)
            if !body.isEmpty, let text = bodyText { try container.encode(text, forKey: .body) }
            try container.encodeIfPresent(body.isEmpty ? nil : body.base64EncodedString(), forKey: .bodyBase64)
            try container.encode(bodySize, forKey: .bodySize)
            try container.encode(bodyTruncated, forKey: .bodyTruncated)
        }
    }

    /// One header field as received or sent: `{"name": "X-Token", "value": "abc"}`.
    public struct HeaderField: Codable, Hashable, Sendable {
        /// The field's name, as first spelled in the message.
        public var name: String
        /// Its value, as the bytes sent (UTF-8).
        public var value: String

        /// A field.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// How a request was answered: `mock`, `file`, `proxy`, `redirect` or `none`
    /// (``unanswered``). Values a newer server may add are kept as they come. Written as a
    /// plain JSON string (the standard library's `Codable` for a `RawRepresentable` with a
    /// `String` raw value).
    public struct AnsweredBy: RawRepresentable, Hashable, Codable, Sendable, CustomStringConvertible {
        /// The value on the wire, such as `mock`.
        public let rawValue: String

        /// The value `rawValue`, as is.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// The value on the wire.
        public var description: String { rawValue }

        /// `mock`: a mock answered (``CatbirdRequest/mockId`` says which).
        public static let mock = AnsweredBy(rawValue: "mock")
        /// `file`: a static file mock answered.
        public static let file = AnsweredBy(rawValue: "file")
        /// `proxy`: the request was forwarded.
        public static let proxy = AnsweredBy(rawValue: "proxy")
        /// `redirect`: the request was redirected.
        public static let redirect = AnsweredBy(rawValue: "redirect")
        /// `none`: no mock, file or upstream answered: nothing matched (a 404, which
        /// `unmatched()` lists), the request was refused (413, 414, 431, 429, 400, the stopping
        /// server's 503), or nothing was sent: its client hung up first, during a mock's `delay`
        /// too (a 499), or it timed out (a 408); the entry's `problem` says which
        /// (docs/protocol.md#what-the-journal-records; tester finding tester57b-F8).
        /// Named `unanswered` so that it cannot be confused with `Optional.none`.
        public static let unanswered = AnsweredBy(rawValue: "none")

        /// Every value this version of the server writes, in documentation order.
        @_spi(Server) public static let known: [AnsweredBy] = [.mock, .file, .proxy, .redirect, .unanswered]
    }

    /// The entry's id; ids increase in arrival order.
    public var id: Int64

    /// When the request arrived (the server's clock, millisecond precision). On the wire:
    /// ISO 8601 UTC text, `2026-11-29T18:01:27.123Z`.
    public var time: Date

    /// The parallel id of the tenant it belongs to; `""` for the default tenant.
    public var tenant: String

    /// The request method.
    public var method: RequestPattern.HTTPMethod

    /// The request-target as received (path and query, or the absolute URL of a proxy-form request).
    public var url: String

    /// The request's headers and body.
    public var request: Message

    /// The response's status, headers and body.
    public var response: Message

    /// How the request was answered.
    public var answeredBy: AnsweredBy

    /// The id of the mock that answered (it may since be gone); nil when no mock answered.
    public var mockId: Int64?

    /// Milliseconds from the request's arrival until its response was handed to the
    /// connection, any mock delay included.
    public var durationMs: Double

    /// The file behind the answer: the file mock that answered (`answeredBy` `file`), or the file
    /// record mode wrote (`redirect`, `proxy`); an absolute path on the server. Nil otherwise, and
    /// from servers that predate it.
    public var filePath: String?

    /// For a request nothing answered (the 404): the closest mocks, closest first, with the
    /// fields that differed (docs/matching.md#near-misses); `[]` when there were no mocks to
    /// compare. Nil for every other request, and from servers that predate near misses.
    public var nearMisses: [CatbirdNearMiss]?

    /// For a request journaled without an answer of Catbird's own, why, in one sentence:
    /// libmicrohttpd refused it with its own error page (`response` then has its status only:
    /// its headers and HTML body are not recorded), or nothing was sent (the client left, the
    /// connection timed out; status 499 or 408). Nil for every request Catbird answered, and
    /// from servers that predate it (docs/protocol.md#malformed-requests).
    public var problem: String?

    /// A journal entry (the server builds these from its rows).
    @_spi(Server) public init(
        id: Int64, time: Date, tenant: String, method: RequestPattern.HTTPMethod, url: String, request: Message, response: Message,
        answeredBy: AnsweredBy, mockId: Int64?, durationMs: Double, filePath: String? = nil, nearMisses: [CatbirdNearMiss]? = nil,
        problem: String? = nil
    ) {
        self.problem = problem
        self.filePath = filePath
        self.nearMisses = nearMisses
        self.id = id
        self.time = time
        self.tenant = tenant
        self.method = method
        self.url = url
        self.request = request
        self.response = response
        self.answeredBy = answeredBy
        self.mockId = mockId
        self.durationMs = durationMs
    }

    private enum CodingKeys: String, CodingKey {
        case id, time, tenant, method, url, request, response, answeredBy, mockId, durationMs, filePath, nearMisses, problem
    }

    /// Reads the server's shape.
    ///
    /// - Throws: `DecodingError` for a missing field, a wrong type or a malformed `time`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Int64.self, forKey: .id)
        time = try Timestamp.decode(.time, from: container)
        tenant = try container.decode(String.self, forKey: .tenant)
        method = try container.decode(RequestPattern.HTTPMethod.self, forKey: .method)
        url = try container.decode(String.self, forKey: .url)
        request = try container.decode(Message.self, forKey: .request)
        response = try container.decode(Message.self, forKey: .response)
        answeredBy = try container.decode(AnsweredBy.self, forKey: .answeredBy)
        mockId = try container.decodeIfPresent(Int64.self, forKey: .mockId)
        durationMs = try container.decode(Double.self, forKey: .durationMs)
        filePath = try container.decodeIfPresent(String.self, forKey: .filePath)
        nearMisses = try container.decodeIfPresent([CatbirdNearMiss].self, forKey: .nearMisses)
        problem = try container.decodeIfPresent(String.self, forKey: .problem)
    }

    /// Writes the server's shape (`mockId` and `filePath` as `null` when absent; `nearMisses`
    /// only for a request nothing answered, `problem` only when set).
    ///
    /// - Throws: `EncodingError` for a non-finite `durationMs`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(Timestamp.string(from: time), forKey: .time)
        try container.encode(tenant, forKey: .tenant)
        try container.encode(method, forKey: .method)
        try container.encode(url, forKey: .url)
        try container.encode(request, forKey: .request)
        try container.encode(response, forKey: .response)
        try container.encode(answeredBy, forKey: .answeredBy)
        try container.encode(mockId, forKey: .mockId)
        try container.encode(durationMs, forKey: .durationMs)
        try container.encode(filePath, forKey: .filePath)
        try container.encodeIfPresent(nearMisses, forKey: .nearMisses)
        try container.encodeIfPresent(problem, forKey: .problem)
    }
}

/// One page of the journal (`Catbird.requests(since:limit:method:url:status:answeredBy:)`).
public struct CatbirdRequestPage: Codable, Hashable, Sendable {
    /// The entries, oldest first (newest first when the listing asked for `order=newest`).
    public var requests: [CatbirdRequest]

    /// Whether more entries follow this page.
    public var hasMore: Bool

    /// The id to pass as `since` for the next page: the last entry's id (or, for an empty
    /// page, the `since` given, or 0).
    public var nextSince: Int64

    /// For a newest-first page (`order=newest`): the lowest id in this page, or the `before`
    /// given for an empty page; pass it back as `before` for the next older page. Nil when
    /// neither exists (and from servers that do not page backwards).
    public var nextBefore: Int64?

    /// True when the page stopped before its `limit` because the next entry would have taken
    /// the answer past the server's size limit (4 MiB; `hasMore` is then true: ask again from
    /// `nextSince` or `nextBefore`). Nil from servers that predate it.
    public var sizeLimited: Bool?

    /// Set when the page's range reached entries of the tenant that the server's retention
    /// deleted (its journal row, byte or age limit): the highest id deleted. Entries that
    /// would have been in the page may be missing. Nil when none were deleted (and from
    /// servers that predate it).
    public var prunedThrough: Int64?

    /// For the listing (`GET /catbird/api/requests`): the highest id of the tenant's entries,
    /// whatever the listing's filters (0 when it has none). A `since` above it names entries
    /// this journal does not have: cleared, dropped, or never there (the server restarted on a
    /// fresh database, whose ids start again at 1); list afresh from `since=0`
    /// (docs/protocol.md#following-the-journal). Nil from other routes and older servers.
    public var newestId: Int64?

    /// For the listing (`GET /catbird/api/requests`): the lowest id of the tenant's entries,
    /// whatever the listing's filters (0 when it has none). Entries held from earlier pages with
    /// lower ids are gone: cleared, dropped or pruned since; when every entry held is below it,
    /// list afresh (docs/protocol.md#following-the-journal). Nil from other routes and older
    /// servers.
    public var oldestId: Int64?

    /// For the listing (`GET /catbird/api/requests`): an opaque id of the server run, new each
    /// time the server starts. When it changes between two pages, the ids held from before may
    /// belong to another journal (a restart on a fresh database): list afresh
    /// (docs/protocol.md#following-the-journal). Nil from other routes and older servers.
    public var serverRun: String?

    /// For `POST /catbird/api/requests/find`: how many entries in the find's bounds match all
    /// but the body pattern and were left out because the journal kept only part of their
    /// request body (`--journal-body-limit`); nil when none (docs/protocol.md#find).
    public var cutBodyMatches: Int?

    /// Sentences about the page (a find's cut bodies: `1 journaled request (#3, 65536 of its
    /// 100006 body bytes kept) matches all but the body pattern, …`); nil when there is
    /// nothing to say.
    public var warnings: [String]?

    /// A page (the server builds these).
    @_spi(Server) public init(
        requests: [CatbirdRequest], hasMore: Bool, nextSince: Int64, nextBefore: Int64? = nil, sizeLimited: Bool? = nil,
        prunedThrough: Int64? = nil,
        cutBodyMatches: Int? = nil, warnings: [String]? = nil
    ) {
        self.requests = requests
        self.hasMore = hasMore
        self.nextSince = nextSince
        self.nextBefore = nextBefore
        self.sizeLimited = sizeLimited
        self.prunedThrough = prunedThrough
        self.cutBodyMatches = cutBodyMatches
        self.warnings = warnings
    }
}
