import CatbirdDomain
import CatbirdHTTP
import CatbirdSupport
@_spi(Server) import CatbirdWire
import Foundation
import Synchronization

/// The body of `GET /catbird/api/mocks`, `{"mocks":[CatbirdMock…],"tenant":"…"}`, streamed
/// mock by mock so that the server never holds the whole answer: a tenant's mocks may carry
/// bodies of up to `--max-body-size` each (50 MiB by default), and their listing in one piece
/// took several times its own size (the mocks' JSON, then a copy).
///
/// Each mock is encoded as the listing always encoded it (``CatbirdMock``'s wire shape, keys
/// sorted) but with a stand-in body, a random token; its real body is then sent as base64 in
/// pieces of ``bodyPieceSize`` bytes where the token stood. A worker thread asked for more
/// thus encodes at most one mock's fields or one piece at a time (``HTTPBodyStream``: it must
/// not block), and memory stays near one mock's fields plus a piece, whatever the bodies.
///
/// The mocks are the snapshot taken when the request was answered (bodies shared with the
/// table, not copied): a change after it is not shown.
final class MockListStream: Sendable {
    /// Body bytes encoded per piece: 48 KiB (64 KiB of base64).
    static let bodyPieceSize = 48 * 1024

    private struct State {
        /// The next mock to encode.
        var next = 0
        /// The body being sent (the mock's own bytes, not a copy) and how much of it was
        /// encoded, and the mock's JSON after it.
        var body: [UInt8] = []
        var bodyOffset = 0
        var afterBody: [UInt8] = []
        var finished = false
    }

    /// The document's start.
    private static let opening = Array(#"{"mocks":["#.utf8)

    private let tenant: String
    private let mocks: [Mock]
    /// The stand-in body's base64 with its JSON key: `"body":"<token>"`; 24 random bytes, so
    /// no header value or pattern in the mock can hold it by chance.
    private let marker: (data: Data, text: [UInt8])
    private let state = Mutex(State())

    /// Whether each mock's response body is listed; without (`bodies=false`), its size in bytes
    /// is, as the mock's `responseBodySize`.
    private let bodies: Bool

    init(tenant: String, mocks: [Mock], bodies: Bool = true) {
        self.tenant = tenant
        self.mocks = mocks
        self.bodies = bodies
        var generator = SystemRandomNumberGenerator()
        let token = Data((0..<24).map { _ in UInt8.random(in: 0...255, using: &generator) })
        marker = (token, Array(#""body":"\#(token.base64EncodedString())""#.utf8))
    }

    /// The response body.
    var body: HTTPBodyStream {
        HTTPBodyStream.parts(first: Self.opening) { [self] in
            try state.withLock { state in try nextPart(&state) }
        }
    }

    /// The listing's length in bytes: the answer to `HEAD` declares it, since libmicrohttpd
    /// 0.9.75 sends a chunked body's last chunk (`0`) even to `HEAD`, which the client would
    /// read as the next answer's start. Each mock's JSON is encoded with the stand-in body as
    /// for `GET`, but the bodies are not: a body of n bytes is counted as its base64's length,
    /// 4 × ⌈n / 3⌉ (RFC 4648 §4, padded; the pieces of ``bodyPieceSize``, a multiple of 3,
    /// concatenate to the whole body's base64), so `HEAD` costs the mocks' fields, not their
    /// bodies.
    /// - Throws: what the encoder throws (never, for a JSONEncoder).
    func byteCount() throws -> Int {
        var total = Self.opening.count + closing.count
        for index in mocks.indices {
            let mock = try split(index)
            total += mock.head.count + Self.base64Length(mock.body.count) + mock.tail.count
        }
        return total
    }

    /// The length of the padded base64 of `count` bytes (RFC 4648 §4).
    private static func base64Length(_ count: Int) -> Int {
        4 * ((count + 2) / 3)
    }

    /// The next part of the document: a piece of the current body, the rest of its mock, the
    /// next mock up to its body, or the document's end; nil once that was sent.
    /// - Throws: what the encoder throws (a JSONEncoder never does for ``CatbirdMock``); the
    ///   connection is then closed without the last chunk, an incomplete transfer.
    private func nextPart(_ state: inout State) throws -> [UInt8]? {
        if state.finished { return nil }
        if state.bodyOffset < state.body.count {
            let end = min(state.body.count, state.bodyOffset + Self.bodyPieceSize)
            let piece = Data(state.body[state.bodyOffset..<end])
            state.bodyOffset = end
            if end == state.body.count {
                state.body = []
                state.bodyOffset = 0
            }
            return Array(piece.base64EncodedString().utf8)
        }
        if !state.afterBody.isEmpty {
            defer { state.afterBody = [] }
            return state.afterBody
        }
        guard state.next < mocks.count else {
            state.finished = true
            return closing
        }
        let mock = try split(state.next)
        state.next += 1
        if !mock.body.isEmpty {
            state.body = mock.body
            state.bodyOffset = 0
            state.afterBody = mock.tail
        }
        return mock.head
    }

    /// The document's end: `],"tenant":"…"}`.
    private var closing: [UInt8] {
        Array(#"],"tenant":"#.utf8) + Array(JSONText.string(tenant).utf8) + [UInt8(ascii: "}")]
    }

    /// Mock `index`'s part of the document, split where its body's base64 goes: `head` (a
    /// comma before every mock but the first, then its JSON up to and including `"body":"`),
    /// the `body` to send as base64, and `tail` (its JSON from the body's closing quote on). A
    /// mock without a body, or with an empty one, is all `head`.
    /// - Throws: what the encoder throws (a JSONEncoder never does for ``CatbirdMock``).
    /// The body is the mock's own bytes (``CatbirdDomain/Mock/responseBody``), not a copy: a
    /// copy per mock made 20 `HEAD`s of a listing of 48 MB of bodies take 0.48 s of CPU.
    private func split(_ index: Int) throws -> (head: [UInt8], body: [UInt8], tail: [UInt8]) {
        let source = mocks[index]
        let body = source.responseBody
        let comma: [UInt8] = index > 0 ? [UInt8(ascii: ",")] : []
        guard bodies else {
            // `{"responseBodySize":N,` and the mock's own fields, its body left out.
            let json = try Self.encoded(MockRoutes.listed(source, withBody: false))
            return (comma + Array(#"{"responseBodySize":\#(body.count),"#.utf8) + json.dropFirst(), [], [])
        }
        // No body, or an empty one: listed as it is (`"body":""` for an empty one).
        guard !body.isEmpty else { return (comma + (try Self.encoded(MockRoutes.listed(source))), [], []) }
        var standIn = MockRoutes.listed(source, withBody: false)
        standIn.response.body = marker.data
        let json = try Self.encoded(standIn)
        guard let range = Self.range(of: marker.text, in: json) else {
            // Cannot happen (the encoder writes the stand-in body as given); send it whole.
            return (comma + (try Self.encoded(MockRoutes.listed(source))), [], [])
        }
        // Up to and including `"body":"`, then the body's pieces, then from the closing quote on.
        let head = comma + json[..<(range.lowerBound + #""body":""#.utf8.count)]
        return (head, body, Array(json[(range.upperBound - 1)...]))
    }

    /// `mock` in the listing's shape: keys sorted, slashes unescaped.
    private static func encoded(_ mock: CatbirdMock) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(mock))
    }

    /// Where `needle` first occurs in `bytes`.
    private static func range(of needle: [UInt8], in bytes: [UInt8]) -> Range<Int>? {
        guard needle.count <= bytes.count, let first = needle.first else { return nil }
        var index = 0
        while index <= bytes.count - needle.count {
            if bytes[index] == first, bytes[index..<(index + needle.count)].elementsEqual(needle) {
                return index..<(index + needle.count)
            }
            index += 1
        }
        return nil
    }
}
