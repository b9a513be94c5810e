import CatbirdSupport
import CZlib

/// A request body's `Content-Encoding` undone, so that body patterns see what the client
/// compressed (docs/matching.md#compressed-request-bodies; WireMock does the same). Decoded:
/// `gzip` (and its old name `x-gzip`, RFC 9110 section 8.4.1.3; several gzip members one
/// after another, as `cat a.gz b.gz` makes, are one body) and `deflate` (zlib data, RFC 9110
/// section 8.4.1.2, or raw deflate, which some clients send under that name), with zlib.
/// A list of them (`gzip, gzip`) is decoded last to first. Any other coding (`br`, `zstd`) or
/// `identity` is left as received.
public enum ContentDecoding: Sendable, Equatable {
    /// The body decoded from `coding` (the `Content-Encoding` value as sent).
    case decoded([UInt8], coding: String)
    /// The body is not valid data of `coding` (corrupt, cut short, or not compressed at all);
    /// `reason` says what zlib found. The body is matched as received.
    case undecodable(coding: String, reason: String)
    /// Decoded, the body would be larger than `limit` bytes (a "zip bomb": 50 KB of gzip may
    /// hold 50 MB); decoding stopped there. The body is matched as received.
    case tooLarge(coding: String, limit: Int)

    /// Each inflate call's output buffer (a whole small body in one call).
    private static let chunkSize = 64 * 1024

    /// The most gzip members decoded in one body (`cat a.gz b.gz` makes two). Each costs an
    /// `inflateReset` and a call, so 2,000,000 empty members (40 MB decoding to nothing) took
    /// about 0.2 s of a worker per request (tester finding try9b F4).
    public static let maxMembers = 1_000

    /// The most compressed bytes decoded for a `limit` of decoded bytes: deflate never grows
    /// data by more than about 0.03 % (stored blocks: 5 bytes per 65,535), so a body longer
    /// than `limit` plus 1/64 and 1 KiB either decodes past `limit` anyway or is padded (empty
    /// members or blocks, decoding to little or nothing) to make the worker read it all; it is
    /// matched as received without being read.
    public static func maxCompressedBytes(forLimit limit: Int) -> Int {
        limit > Int.max / 2 ? Int.max : limit + limit / 64 + 1024
    }

    /// The most codings of one `Content-Encoding` list decoded (`gzip, gzip` is two): 4. Each is
    /// bounded as a single coding is (``maxCompressedBytes(forLimit:)``, ``maxMembers``, the
    /// output `limit`), so a list costs at most four times one coding's work.
    public static let maxCodings = 4

    /// The decoding of `body` sent with `Content-Encoding: contentEncoding`, at most `limit`
    /// bytes of output held at any time (plus one chunk of 64 KiB); nil when there is nothing
    /// to undo (no body, no coding, `identity`, or one coding that is not decoded: see the
    /// type's comment).
    ///
    /// A list of codings (`gzip, gzip`: RFC 9110 section 8.4, applied in the order listed) is
    /// decoded last to first, each coding as a single one is; a list with a coding that is not
    /// decoded (`br, gzip`), or of more than ``maxCodings``, is matched as received, and
    /// ``undecodable(coding:reason:)`` says why (tester finding T11-F9: a `gzip, gzip` body was
    /// matched as received without a word).
    /// The codings a `Content-Encoding` value lists (RFC 9110 section 8.4), in order, lowercased,
    /// without `identity` and empty members: empty when there is nothing to undo.
    public static func codings(_ contentEncoding: String) -> [String] {
        contentEncoding.split(separator: ",", omittingEmptySubsequences: true)
            .map { $0.trimmingOptionalWhitespace().lowercased() }.filter { !$0.isEmpty && $0 != "identity" }
    }

    public static func decode(_ body: [UInt8], contentEncoding: String?, limit: Int) -> ContentDecoding? {
        guard !body.isEmpty, let contentEncoding else { return nil }
        let codings = codings(contentEncoding)
        guard codings.count > 1 else {
            return codings.first.flatMap { decode(body, coding: $0, shown: contentEncoding, limit: limit) }
        }
        guard codings.count <= maxCodings else {
            return .undecodable(coding: contentEncoding, reason: "it lists \(codings.count) codings; at most \(maxCodings) are decoded")
        }
        if let other = codings.first(where: { !decodedCodings.contains($0) }) {
            return .undecodable(coding: contentEncoding, reason: "\(other) is not a coding decoded for matching (gzip and deflate are)")
        }
        var bytes = body
        for (index, coding) in codings.enumerated().reversed() {
            switch decode(bytes, coding: coding, shown: contentEncoding, limit: limit) {
            case let .decoded(inner, _)?:
                bytes = inner
            case let .undecodable(_, reason)?:
                return .undecodable(coding: contentEncoding, reason: "its coding \(index + 1) of \(codings.count), \(coding): \(reason)")
            case let outcome?:
                return outcome
            case nil:
                return .undecodable(coding: contentEncoding, reason: "its coding \(index + 1) of \(codings.count), \(coding), left no bytes to decode")
            }
        }
        return .decoded(bytes, coding: contentEncoding)
    }

    /// The codings decoded, lowercased: `gzip`, `x-gzip`, `deflate`.
    public static let decodedCodings: Set<String> = ["gzip", "x-gzip", "deflate"]

    /// `body` decoded from one `coding` (lowercased, one of ``decodedCodings``, else nil), the result
    /// naming `shown`, the `Content-Encoding` value as sent.
    private static func decode(_ body: [UInt8], coding: String, shown contentEncoding: String, limit: Int) -> ContentDecoding? {
        guard !body.isEmpty else { return nil }
        // Gzip only for gzip, so a zlib stream sent as gzip is reported, not guessed at; deflate
        // tries zlib's format first, then raw deflate.
        let attempts: [Int32] = switch coding {
        case "gzip", "x-gzip": [15 + 16]
        case "deflate": [15, -15]
        default: []
        }
        guard let first = attempts.first else { return nil }
        guard body.count <= maxCompressedBytes(forLimit: limit) else {
            return .undecodable(
                coding: contentEncoding,
                reason: "its \(body.count) bytes are more than the \(maxCompressedBytes(forLimit: limit)) compressed bytes read "
                    + "for \(limit) decoded bytes, the most decoded for matching")
        }
        var outcome = inflate(body, windowBits: first, gzip: first > 15, coding: contentEncoding, limit: limit)
        if case .undecodable = outcome, attempts.count > 1 {
            let raw = inflate(body, windowBits: attempts[1], gzip: false, coding: contentEncoding, limit: limit)
            if case .undecodable = raw {} else { outcome = raw }
        }
        return outcome
    }

    /// Inflates all of `body` with zlib (`windowBits` as in ``catbird_inflate_init``); with
    /// `gzip`, a member's end followed by more bytes starts the next member.
    private static func inflate(_ body: [UInt8], windowBits: Int32, gzip: Bool, coding: String, limit: Int) -> ContentDecoding {
        // zlib's state points back at its z_stream (inflateStateCheck), so the stream must not
        // move: allocated, not a Swift local.
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer { stream.deallocate() }
        guard catbird_inflate_init(stream, windowBits) == Z_OK else {
            return .undecodable(coding: coding, reason: "zlib could not start (out of memory)")
        }
        defer { inflateEnd(stream) }
        var output: [UInt8] = []
        var members = 1
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        guard body.count <= Int(UInt32.max) else { return .tooLarge(coding: coding, limit: limit) }  // zlib counts in UInt32
        return body.withUnsafeBufferPointer { input -> ContentDecoding in
            stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            stream.pointee.avail_in = UInt32(input.count)
            while true {
                let status = chunk.withUnsafeMutableBufferPointer { buffer -> Int32 in
                    stream.pointee.next_out = buffer.baseAddress
                    stream.pointee.avail_out = UInt32(buffer.count)
                    return CZlib.inflate(stream, Z_NO_FLUSH)
                }
                let produced = chunk.count - Int(stream.pointee.avail_out)
                guard output.count + produced <= limit else { return .tooLarge(coding: coding, limit: limit) }
                output.append(contentsOf: chunk[..<produced])
                switch status {
                case Z_OK:
                    continue
                case Z_STREAM_END:
                    if stream.pointee.avail_in == 0 { return .decoded(output, coding: coding) }
                    guard gzip, inflateReset(stream) == Z_OK else {
                        return .undecodable(coding: coding, reason: "\(stream.pointee.avail_in) bytes follow the end of the compressed data")
                    }
                    members += 1
                    guard members <= maxMembers else {
                        return .undecodable(coding: coding, reason: "it holds more than \(maxMembers) gzip members, the most decoded")
                    }
                case Z_BUF_ERROR where stream.pointee.avail_in == 0:
                    return .undecodable(coding: coding, reason: "the compressed data ends early (cut short)")
                case Z_BUF_ERROR:
                    continue
                default:
                    let message = stream.pointee.msg.map { String(cString: $0) } ?? "zlib error \(status)"
                    return .undecodable(coding: coding, reason: message)
                }
            }
        }
    }
}

extension ContentDecoding {
    /// The journal entry's `problem` of a request whose body of `receivedBytes` bytes this is
    /// (docs/matching.md#compressed-request-bodies): the journal keeps the body as received, so
    /// the entry says what matching saw instead.
    public func note(receivedBytes: Int) -> String {
        switch self {
        case let .decoded(bytes, coding):
            "the request body was sent with Content-Encoding: \(coding) (\(receivedBytes) bytes, journaled as received); "
                + "body patterns were matched against its \(bytes.count) decoded bytes"
        case let .undecodable(coding, reason):
            "the request body was sent with Content-Encoding: \(coding) but could not be decoded (\(reason)); "
                + "body patterns were matched against its \(receivedBytes) bytes as received"
        case let .tooLarge(coding, limit):
            "the request body was sent with Content-Encoding: \(coding) (\(receivedBytes) bytes) and decodes to more than "
                + "\(limit) bytes, the most decoded for matching; body patterns were matched against its \(receivedBytes) bytes as received"
        }
    }
}

extension HTTPRequest {
    /// The bytes body patterns are matched against: the body decoded from its
    /// `Content-Encoding` (``contentDecoding``), else ``body`` as received.
    public var matchedBody: [UInt8] {
        if case let .decoded(bytes, _) = contentDecoding { return bytes }
        return body
    }
}
