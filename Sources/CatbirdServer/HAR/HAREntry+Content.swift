import CatbirdDomain
import CatbirdHTTP

extension HAREntry {
    /// A body as HAR 1.2's `content` (a response's; a request's `postData` is made from it,
    /// ``PostData``): its `text` is the body decoded from its
    /// `Content-Encoding` (gzip, x-gzip, deflate, or a list of them, undone by zlib as request
    /// bodies are for matching: ``CatbirdHTTP/ContentDecoding``), then read as text by its
    /// charset, else the decoded bytes as base64 (`encoding` "base64", for a binary body only);
    /// `size` is the decoded size and `compression` the bytes the coding saved, while
    /// `response.bodySize` stays the bytes sent (tester finding T15B-F9: a gzip answer's
    /// compressed bytes were given, base64, as the body).
    ///
    /// A body that is not decoded is given as sent, `size` its size and no `compression`, and
    /// the `comment` says why: a coding zlib does not undo (`br`, `zstd`), data that is not of
    /// its coding, more than `decodedLimit` bytes once decoded, or a body the journal kept
    /// only the start of (`--journal-body-limit`), which cannot be decoded whole.
    static func content(_ message: JournalExportEntry.Message, mimeType: String, decodedLimit: Int) -> Content {
        let truncated = truncation(message)
        let asSent = { (why: String?) -> Content in
            let (text, encoding) = text(message.body, contentType: mimeType)
            let comment = [truncated, why].compactMap { $0 }.joined(separator: "; ")
            return Content(size: message.bodySize, mimeType: mimeType, text: text, encoding: encoding, comment: comment.isEmpty ? nil : comment)
        }
        // Every `Content-Encoding` line, one list, as mock matching reads them (tester35a-F2).
        let lines = message.headers.filter { $0.name.lowercased() == "content-encoding" }.map(\.value)
        let coding = lines.joined(separator: ", ")
        guard !message.body.isEmpty, !lines.isEmpty, !ContentDecoding.codings(coding).isEmpty else { return asSent(nil) }
        let named = "Content-Encoding: \(coding)"
        if let other = ContentDecoding.codings(coding).first(where: { !ContentDecoding.decodedCodings.contains($0) }) {
            return asSent("the body is given as sent (\(named)): \(other) is not a coding decoded here (gzip and deflate are)")
        }
        guard !message.bodyTruncated else { return asSent("the body is given as sent (\(named)): only its start was kept, which cannot be decoded") }
        switch ContentDecoding.decode(message.body, contentEncoding: coding, limit: decodedLimit) {
        case let .decoded(bytes, _)?:
            let (text, encoding) = text(bytes, contentType: mimeType)
            return Content(
                size: bytes.count, compression: bytes.count - message.bodySize, mimeType: mimeType, text: text, encoding: encoding,
                comment: nil)
        case let .undecodable(_, reason)?:
            return asSent("the body is given as sent (\(named)): it could not be decoded (\(reason))")
        case .tooLarge?:
            return asSent("the body is given as sent (\(named)): it decodes to more than \(decodedLimit) bytes, the most decoded for an export")
        case nil:
            return asSent(nil)
        }
    }
}
