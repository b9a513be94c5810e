import CatbirdDomain
import CatbirdHTTP

extension CatbirdHandler {
    /// Undoes `request`'s `Content-Encoding` (gzip, deflate) for matching, before any mock is
    /// compared (``ContentDecoding``, docs/matching.md#compressed-request-bodies): the decoded
    /// body is what body patterns see; the journal keeps the body as received and says so in
    /// the entry's `problem`. A body that decodes past `--max-body-size` is answered here with
    /// a JSON 413 (journaled, `answeredBy` `none`), decoding stopped at the limit, so a small
    /// "zip bomb" cannot take the server's memory.
    /// - Returns: that 413's answer; nil when `request` is to be served (decoded or as received).
    func decodingBody(_ request: inout HTTPRequest, tenant: TenantID) -> HTTPAnswer? {
        guard !request.body.isEmpty, let encoding = request.headers.first("Content-Encoding") else { return nil }
        request.contentDecoding = ContentDecoding.decode(request.body, contentEncoding: encoding, limit: maxBodySize)
        guard case let .tooLarge(coding, limit) = request.contentDecoding else { return nil }
        let refusal = APIError(
            status: 413,
            reason: "the request body (Content-Encoding: \(coding), \(request.body.count) bytes) decodes to more than the limit of "
                + "\(limit) bytes (--max-body-size, CATBIRD_MAX_BODY_SIZE); body patterns are matched against the decoded "
                + "body, so it was refused")
        return answer(serving.answered(refusal.response, request: request, tenant: tenant), request, tenant: tenant)
    }
}
