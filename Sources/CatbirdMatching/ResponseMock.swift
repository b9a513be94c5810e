import Foundation

/// The response a mock serves.
///
/// JSON shape (spec 1.1, Catbird 0.11 `ResponseMock`):
/// `{"status": 200, "headers": {"K": "V"}, "body": "<base64>", "limit": 2, "delay": 1}`.
/// - `status` is required (an integer HTTP status code; not range-checked here).
/// - `headers` is required by Catbird 0.11; a missing or `null` one is accepted as `{}` (spec 1.1).
/// - `body` is standard, padded base64 of the raw bytes; absent or `null` means no body. Invalid
///   base64 throws a `DecodingError.dataCorrupted` whose reason is "<path>.body is not valid base64".
///   (The client escapes `/` as `\/`; JSON decoding undoes that before base64 decoding.)
/// - `limit`: responses served before the mock disappears; `nil` is unlimited (see ``effectiveLimit``).
/// - `delay`: whole **seconds** to wait before answering; `nil` is none.
///
/// Encoding writes `status` and `headers` always and omits `body`, `limit` and `delay` when `nil`,
/// exactly like the 0.11 client's `JSONEncoder` output.
public struct ResponseMock: Codable, Sendable, Equatable {
    /// HTTP status code, e.g. `200`.
    public var status: Int
    /// Response headers sent as given. No default Content-Type is added (spec 1.1).
    public var headers: [String: String]
    /// Raw body bytes, or `nil` for no body.
    public var body: [UInt8]?
    /// Number of responses before the mock is removed, `nil` for unlimited. Values `<= 0` behave as 1
    /// (spec 1.1); read ``effectiveLimit`` for the normalised value.
    public var limit: Int?
    /// Delay before the response is sent, in whole **seconds** (wire format, spec 1.1); `nil` for none.
    public var delay: Int?

    /// Creates a response; the defaults give Catbird 0.11's `ResponseMock()`: 200, no headers, no body.
    public init(
        status: Int = 200,
        headers: [String: String] = [:],
        body: [UInt8]? = nil,
        limit: Int? = nil,
        delay: Int? = nil
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.limit = limit
        self.delay = delay
    }

    /// The number of responses this mock serves: `nil` when unlimited, otherwise `max(limit, 1)`,
    /// because Catbird 0.11 serves a mock with `limit <= 0` once (spec 1.1).
    public var effectiveLimit: Int? {
        limit.map { max($0, 1) }
    }

    private enum CodingKeys: String, CodingKey {
        case status, headers, body, limit, delay
    }

    /// Decodes the spec 1.1 shape (see the type's documentation for each key).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        status = try container.decode(Int.self, forKey: .status)
        headers = try container.decodeIfPresent([String: String].self, forKey: .headers) ?? [:]
        limit = try container.decodeIfPresent(Int.self, forKey: .limit)
        delay = try container.decodeIfPresent(Int.self, forKey: .delay)
        if let base64 = try container.decodeIfPresent(String.self, forKey: .body) {
            guard let data = Data(base64Encoded: base64) else {
                let path = container.codingPath + [CodingKeys.body]
                throw DecodingError.readable(at: path, "\(CodingPathText.dotted(path)) is not valid base64")
            }
            body = [UInt8](data)
        } else {
            body = nil
        }
    }

    /// Encodes `status`, `headers`, and `body` (padded base64), `limit`, `delay` only when non-nil.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(status, forKey: .status)
        try container.encode(headers, forKey: .headers)
        try container.encodeIfPresent(body.map { Data($0).base64EncodedString() }, forKey: .body)
        try container.encodeIfPresent(limit, forKey: .limit)
        try container.encodeIfPresent(delay, forKey: .delay)
    }
}
