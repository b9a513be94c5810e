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
    ///
    /// Read without its body (`bodies=false`, `bodies` false), a body that was not empty has
    /// `size` the bytes sent and a `comment` saying it was left out, and that this size is not
    /// the decoded one when it had a `Content-Encoding` (tester findings tester36a-F1: it said
    /// "the journal kept the first 0 of N bytes (--journal-body-limit)"; F2: a gzip answer's
    /// compressed size stood as `size`, unexplained).
    static func content(_ message: JournalExportEntry.Message, mimeType: String, decodedLimit: Int, bodies: Bool = true) -> Content {
        // Every `Content-Encoding` line, one list, as mock matching reads them (tester35a-F2).
        let lines = message.headers.filter { $0.name.lowercased() == "content-encoding" }.map(\.value)
        let coding = lines.joined(separator: ", ")
        if !bodies, message.bodySize > 0 {
            let sizeNote = ContentDecoding.codings(coding).isEmpty ? "" : "; size is the bytes sent (Content-Encoding: \(coding)), not decoded"
            return Content(
                size: message.bodySize, mimeType: mimeType, text: nil, encoding: nil,
                comment: "the body was left out of this export (bodies=false)" + sizeNote)
        }
        let truncated = truncation(message)
        // Every `why` is of a body with a coding not undone: its `size` is not the decoded one
        // HAR 1.2 means, which says so (tester finding tester64a-F4: a cut gzip answer's size
        // stood as the decoded size).
        let asSent = { (why: String?) -> Content in
            let (text, encoding) = text(message.body, contentType: mimeType)
            let comment = [truncated, why.map { $0 + "; size is the bytes sent, not decoded" }].compactMap { $0 }.joined(separator: "; ")
            return Content(size: message.bodySize, mimeType: mimeType, text: text, encoding: encoding, comment: comment.isEmpty ? nil : comment)
        }
        guard !message.body.isEmpty, !lines.isEmpty, !ContentDecoding.codings(coding).isEmpty else { return asSent(nil) }
        let named = "Content-Encoding: \(coding)"
        if let other = ContentDecoding.codings(coding).first(where: { !ContentDecoding.decodedCodings.contains($0) }) {
            return asSent("the body is given as sent (\(named)): \(other) is not a coding decoded here (gzip and deflate are)")
        }
        guard !message.bodyTruncated else { return asSent("the body is given as sent (\(named)): only its start was kept, which cannot be decoded") }
        switch ContentDecoding.decode(message.body, contentEncoding: coding, limit: decodedLimit) {
        case let .decoded(bytes, _)?:
            let (text, encoding) = text(bytes, contentType: mimeType)
            // HAR 1.2: "Number of bytes saved"; a coding that made the body larger saved none,
            // and a negative saving read as such in viewers (tester finding tester56a-F3).
            let saved = bytes.count - message.bodySize
            return Content(
                size: bytes.count, compression: saved >= 0 ? saved : nil, mimeType: mimeType, text: text, encoding: encoding,
                comment: saved >= 0 ? nil : "\(named) made the body \((-saved).counted("byte", "bytes")) larger than decoded (\(message.bodySize) sent)")
        case let .undecodable(_, reason)?:
            return asSent("the body is given as sent (\(named)): it could not be decoded (\(reason))")
        case .tooLarge?:
            return asSent("the body is given as sent (\(named)): it decodes to more than \(decodedLimit) bytes, the most decoded for an export")
        case nil:
            return asSent(nil)
        }
    }
}
