import CatbirdSupport
import Foundation

/// The response a mock answers with.
///
/// Wire shape: `{"status": 200, "headers": {"K": "V"}, "body": "<base64>", "limit": 2, "delay": 1}`;
/// `headers` is always written (`{}` when empty), `body`, `limit` and `delay` are left out
/// when nil. The server adds no Content-Type of its own (set one in `headers`); it always
/// adds Content-Length. A missing or `null` `headers` reads as `{}` (Catbird 0.11 required it).
/// The rules: docs/protocol.md#control-actions.
public struct ResponseMock: Equatable, Hashable, Codable, Sendable {
    /// The HTTP status code, 200–599 (the server rejects others with a 400).
    public var status: Int

    /// Response header fields, name → value. Values may not contain C0 control characters
    /// other than tab, nor DEL (400 otherwise); other characters go out as their UTF-8 bytes.
    public var headers: [String: String]

    /// The response body bytes, sent as is; nil for an empty body. Travels as padded base64.
    public var body: Data?

    /// How many responses the mock serves before the server removes it; nil for no limit.
    /// `0` or less behaves as 1.
    public var limit: Int?

    /// Whole **seconds** the server waits before answering (0–86400); nil for no delay.
    public var delay: Int?

    /// A response mock.
    ///
    /// - Parameters:
    ///   - status: the HTTP status code, 200–599.
    ///   - headers: response header fields, name → value.
    ///   - body: the body bytes; nil for an empty body.
    ///   - limit: how many responses to serve before the mock is removed; nil for no limit.
    ///   - delay: whole seconds to wait before answering; nil for none.
    public init(status: Int = 200, headers: [String: String] = [:], body: Data? = nil, limit: Int? = nil, delay: Int? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.limit = limit
        self.delay = delay
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case status, headers, body, limit, delay
    }

    /// Reads the wire shape; a missing or `null` `headers` reads as `{}`.
    ///
    /// - Throws: `DecodingError` when `status` is missing, a field has the wrong type, or
    ///   `body` is not valid base64, or for an unknown key when refused (``UnknownWireKeys``).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try decoder.refuseUnknownKeys(besides: CodingKeys.self)
        status = try container.decode(Int.self, forKey: .status)
        headers = try container.decodeIfPresent([String: String].self, forKey: .headers) ?? [:]
        limit = try container.decodeIfPresent(Int.self, forKey: .limit)
        delay = try container.decodeIfPresent(Int.self, forKey: .delay)
        if let base64 = try container.decodeIfPresent(String.self, forKey: .body) {
            guard let bytes = Data(strictBase64: base64) else {
                let path = container.codingPath + [CodingKeys.body]
                throw DecodingError.readable(at: path, "\(CodingPathText.dotted(path)) is not valid base64" + Self.base64Hint(base64))
            }
            body = bytes
        } else {
            body = nil
        }
    }

    /// What to send instead of `text`, a `body` that is not base64 (tester finding try9a F13:
    /// everyone's first mock sends the body as text): `: the body is its bytes in standard
    /// padded base64 (Catbird 0.11's format); for the text "{\"a\":1}" send "eyJhIjoxfQ=="`.
    /// The encoding is shown for a value of up to 64 bytes; a longer one gets the rule only.
    /// Base64 wrapped in lines (GNU `base64` wraps at 76 columns) gets the rule and how to
    /// write it on one line instead (tester13's note beside T13-F3). Base64 without its `=`
    /// padding, or base64url, gets the rule and its standard form (``Base64Slip``, tester
    /// finding T18A-F4: `"aGVsbG8"` was told to send `"YUdWc2JHOA=="`, the base64 of its text):
    /// `; "aGVsbG8" is base64 without its "=" padding: send "aGVsbG8="`; for a value over 64
    /// bytes, how to write it instead.
    /// `rule`: what the value must be, before the hint; a mock body's by default.
    @_spi(Server) public static func base64Hint(
        _ text: String, rule: String = ": the body is its bytes in standard padded base64 (Catbird 0.11's format)"
    ) -> String {
        if text.utf8.contains(UInt8(ascii: "\n")) || text.utf8.contains(UInt8(ascii: "\r")) {
            return rule + " on one line, without line breaks (GNU base64 wraps at 76 columns: use base64 -w0)"
        }
        let shown = text.utf8.count <= 64
        let asText = "for the text \(CodingPathText.jsonQuoted(text)) send \"\(Data(text.utf8).base64EncodedString())\""
        guard let (slip, standard) = Base64Slip.find(in: text) else { return shown ? rule + "; " + asText : rule }
        let what = shown ? CodingPathText.jsonQuoted(text) : "this"
        var hint: String
        switch slip {
        case let .unpadded(padding):
            hint = "\(what) is base64 without its \"=\" padding: " + (shown ? "send \"\(standard)\"" : "add \"\(padding)\" at its end")
        case .base64URL:
            hint = "\(what) is base64url (\"-\" and \"_\" for \"+\" and \"/\"): send it in standard base64, "
                + (shown ? "\"\(standard)\"" : "\"+\" for \"-\", \"/\" for \"_\", and \"=\" padding to a multiple of 4 characters")
        case let .whitespace(offset):
            let what_ = text.utf8[text.utf8.index(text.utf8.startIndex, offsetBy: offset)] == UInt8(ascii: " ") ? "a space" : "a tab"
            hint = "\(what) holds \(what_) at byte \(offset), and base64 has none: "
                + (shown ? "without its spaces and tabs, send \"\(standard)\"" : "remove its spaces and tabs")
        case .extraPadding:
            hint = "\(what) has more \"=\" padding than its last group takes: " + (shown ? "send \"\(standard)\"" : "keep the \"=\" it takes")
        case let .concatenated(pieces):
            hint = "\(what) is \(pieces) padded base64 values one after another: "
                + (shown ? "for their bytes together send \"\(standard)\"" : "encode their bytes together once")
        }
        // Base64 of bytes that are no text may have been meant as text (`ok`): both said.
        if shown, !Base64Slip.decodesToText(standard) { hint = "if " + hint + "; if it is text, " + asText }
        return rule + "; " + hint
    }

    /// Writes the wire shape: `body` as padded base64; `body`, `limit` and `delay` left out
    /// when nil.
    ///
    /// - Throws: whatever the encoder throws (a JSONEncoder never does for this type).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(status, forKey: .status)
        try container.encode(headers, forKey: .headers)
        try container.encodeIfPresent(body?.base64EncodedString(), forKey: .body)
        try container.encodeIfPresent(limit, forKey: .limit)
        try container.encodeIfPresent(delay, forKey: .delay)
    }
}
