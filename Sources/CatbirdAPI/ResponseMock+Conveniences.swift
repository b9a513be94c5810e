import CatbirdSupport
import Foundation

extension ResponseMock {
    /// A response whose body is `value` encoded as JSON, with `Content-Type: application/json`
    /// (unless `headers` already has a Content-Type, in any letter case).
    ///
    /// ```swift
    /// let mock = try ResponseMock.json(["posts": []], status: 200)
    /// ```
    ///
    /// - Parameters:
    ///   - value: the body, encoded with `encoder`.
    ///   - status: the HTTP status code, 200–599.
    ///   - headers: more response header fields.
    ///   - encoder: the encoder to use (a plain `JSONEncoder()` by default).
    /// - Returns: a response with no limit and no delay (set ``limit`` and ``delay`` afterwards).
    /// - Throws: `EncodingError` when `value` cannot be encoded (e.g. a non-finite Double).
    public static func json(
        _ value: some Encodable, status: Int = 200, headers: [String: String] = [:], encoder: JSONEncoder = JSONEncoder()
    ) throws -> ResponseMock {
        let body = try encoder.encode(value)
        return ResponseMock(status: status, headers: headers.withDefaultContentType("application/json"), body: body)
    }

    /// A response whose body is the contents of a file (a JSON fixture, an image, …).
    ///
    /// Content-Type comes from `headers` when it has one (in any letter case); else from the
    /// file's extension: `json` (any case) → `application/json`, anything else →
    /// `application/octet-stream`.
    ///
    /// - Parameters:
    ///   - url: a file URL to read.
    ///   - status: the HTTP status code, 200–599.
    ///   - headers: more response header fields.
    /// - Throws: the `CocoaError` of `Data(contentsOf:)` when the file cannot be read.
    public init(contentsOf url: URL, status: Int = 200, headers: [String: String] = [:]) throws {
        let body = try Data(contentsOf: url)
        let contentType = url.pathExtension.lowercased() == "json" ? "application/json" : "application/octet-stream"
        self.init(status: status, headers: headers.withDefaultContentType(contentType), body: body)
    }
}

extension Dictionary where Key == String, Value == String {
    /// These headers plus `Content-Type: contentType` unless they have a Content-Type already.
    fileprivate func withDefaultContentType(_ contentType: String) -> [String: String] {
        guard !keys.contains(where: { $0.equalsIgnoringASCIICase("Content-Type") }) else { return self }
        var headers = self
        headers["Content-Type"] = contentType
        return headers
    }
}
