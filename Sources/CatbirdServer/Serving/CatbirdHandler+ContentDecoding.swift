import CatbirdDomain
import CatbirdHTTP

extension CatbirdHandler {
    /// The most bytes a compressed request body is decoded to for matching: `--max-body-size`,
    /// at most 8 MiB (about 20 ms of a worker's inflating, so a small "zip bomb" holds neither
    /// the worker nor the memory long).
    static let decodedBodyLimit = 8 * 1024 * 1024

    /// Undoes `request`'s `Content-Encoding` (gzip, deflate) for matching, before any mock is
    /// compared (``ContentDecoding``, docs/matching.md#compressed-request-bodies): the decoded
    /// body is what body patterns see; the journal keeps the body as received and says so in
    /// the entry's `problem`. A body that cannot be decoded, or decodes past the limit
    /// (decoding stops there), is matched as received, as Catbird 0.11 matched every body: a
    /// request no body pattern looks at (or that is forwarded) is served as before (review of
    /// this change: such a body was refused with 413).
    func decodeBody(_ request: inout HTTPRequest) {
        // Every `Content-Encoding` line, one list (RFC 9110 §5.3; tester finding tester35a-F2:
        // `gzip` on two lines was decoded once, and the body missed its mock).
        let lines = request.headers.values("Content-Encoding")
        guard !request.body.isEmpty, !lines.isEmpty else { return }
        let encoding = lines.joined(separator: ", ")
        request.contentDecoding = ContentDecoding.decode(
            request.body, contentEncoding: encoding, limit: min(maxBodySize, Self.decodedBodyLimit))
    }
}
