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
        /// Bytes ready to send, and how many of them were sent.
        var pending: [UInt8] = []
        var sent = 0
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
        state.withLock { $0.pending = Array(#"{"mocks":["#.utf8) }
    }

    /// The response body.
    var body: HTTPBodyStream {
        HTTPBodyStream { [self] _, buffer in fill(buffer) }
    }

    private func fill(_ buffer: UnsafeMutableRawBufferPointer) -> HTTPBodyStream.Step {
        state.withLock { state in
            while state.sent == state.pending.count {
                if state.finished { return .finished }
                state.pending = []
                state.sent = 0
                do {
                    try produce(into: &state)
                } catch {
                    // The connection is closed without the last chunk: the client sees an
                    // incomplete transfer rather than a listing that lacks a mock.
                    state.finished = true
                    return .failed
                }
            }
            let count = min(buffer.count, state.pending.count - state.sent)
            state.pending.withUnsafeBytes { bytes in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[state.sent..<(state.sent + count)]))
            }
            state.sent += count
            return .wrote(count)
        }
    }

    /// Puts the next part of the document in `pending`: a piece of the current body, the rest
    /// of its mock, the next mock up to its body, or the document's end.
    /// - Throws: what the encoder throws (a JSONEncoder never does for ``CatbirdMock``).
    private func produce(into state: inout State) throws {
        if state.bodyOffset < state.body.count {
            let end = min(state.body.count, state.bodyOffset + Self.bodyPieceSize)
            state.pending = Array(state.body[(state.body.startIndex + state.bodyOffset)..<(state.body.startIndex + end)]
                .base64EncodedString().utf8)
            state.bodyOffset = end
            if end == state.body.count {
                state.body = Data()
                state.bodyOffset = 0
            }
            return
        }
        if !state.afterBody.isEmpty {
            state.pending = state.afterBody
            state.afterBody = []
            return
        }
        guard state.next < mocks.count else {
            state.pending = Array(#"],"tenant":"#.utf8) + Array(JSONText.string(tenant).utf8) + [UInt8(ascii: "}")]
            state.finished = true
            return
        }
        let mock = MockRoutes.listed(mocks[state.next])
        if state.next > 0 { state.pending.append(UInt8(ascii: ",")) }
        state.next += 1
        guard let body = mock.response.body, !body.isEmpty else {
            state.pending += try Self.encoded(mock)
            return
        }
        var standIn = mock
        standIn.response.body = marker.data
        let json = try Self.encoded(standIn)
        guard let range = Self.range(of: marker.text, in: json) else {
            // Cannot happen (the encoder writes the stand-in body as given); send it whole.
            state.pending += try Self.encoded(mock)
            return
        }
        // Up to and including `"body":"`, then the body's pieces, then from the closing quote on.
        let opening = range.lowerBound + #""body":""#.utf8.count
        state.pending += json[..<opening]
        state.body = body
        state.bodyOffset = 0
        state.afterBody = Array(json[(range.upperBound - 1)...])
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
