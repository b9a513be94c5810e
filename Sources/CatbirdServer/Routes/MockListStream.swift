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
        /// The body being sent and how much of it was encoded, and the mock's JSON after it.
        var body = Data()
        var bodyOffset = 0
        var afterBody: [UInt8] = []
        var finished = false
    }

    private let tenant: String
    private let mocks: [Mock]
    /// The stand-in body's base64 with its JSON key: `"body":"<token>"`; 24 random bytes, so
    /// no header value or pattern in the mock can hold it by chance.
    private let marker: (data: Data, text: [UInt8])
    private let state = Mutex(State())

    init(tenant: String, mocks: [Mock]) {
        self.tenant = tenant
        self.mocks = mocks
        var generator = SystemRandomNumberGenerator()
        let token = Data((0..<24).map { _ in UInt8.random(in: 0...255, using: &generator) })
        marker = (token, Array(#""body":"\#(token.base64EncodedString())""#.utf8))
    }

    /// The response body.
    var body: HTTPBodyStream {
        HTTPBodyStream.parts(first: Array(#"{"mocks":["#.utf8)) { [self] in
            try state.withLock { state in try nextPart(&state) }
        }
    }

    /// The listing's length in bytes, counted by producing it once without keeping it: the
    /// answer to `HEAD` declares it, since libmicrohttpd 0.9.75 sends a chunked body's last
    /// chunk (`0`) even to `HEAD`, which the client would read as the next answer's start.
    /// - Throws: what the encoder throws (never, for a JSONEncoder).
    func byteCount() throws -> Int {
        var state = State()
        var total = #"{"mocks":["#.utf8.count
        while let part = try nextPart(&state) { total += part.count }
        return total
    }

    /// The next part of the document: a piece of the current body, the rest of its mock, the
    /// next mock up to its body, or the document's end; nil once that was sent.
    /// - Throws: what the encoder throws (a JSONEncoder never does for ``CatbirdMock``); the
    ///   connection is then closed without the last chunk, an incomplete transfer.
    private func nextPart(_ state: inout State) throws -> [UInt8]? {
        if state.finished { return nil }
        if state.bodyOffset < state.body.count {
            let end = min(state.body.count, state.bodyOffset + Self.bodyPieceSize)
            let piece = state.body[(state.body.startIndex + state.bodyOffset)..<(state.body.startIndex + end)]
            state.bodyOffset = end
            if end == state.body.count {
                state.body = Data()
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
            return Array(#"],"tenant":"#.utf8) + Array(JSONText.string(tenant).utf8) + [UInt8(ascii: "}")]
        }
        let mock = MockRoutes.listed(mocks[state.next])
        var part: [UInt8] = state.next > 0 ? [UInt8(ascii: ",")] : []
        state.next += 1
        guard let body = mock.response.body, !body.isEmpty else {
            return part + (try Self.encoded(mock))
        }
        var standIn = mock
        standIn.response.body = marker.data
        let json = try Self.encoded(standIn)
        guard let range = Self.range(of: marker.text, in: json) else {
            // Cannot happen (the encoder writes the stand-in body as given); send it whole.
            return part + (try Self.encoded(mock))
        }
        // Up to and including `"body":"`, then the body's pieces, then from the closing quote on.
        part += json[..<(range.lowerBound + #""body":""#.utf8.count)]
        state.body = body
        state.bodyOffset = 0
        state.afterBody = Array(json[(range.upperBound - 1)...])
        return part
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
