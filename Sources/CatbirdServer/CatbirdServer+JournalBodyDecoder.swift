import CatbirdDomain
import CatbirdHTTP

extension CatbirdServer {
    /// The journal's body decoder (``JournalBodyDecoder``): a request body's `Content-Encoding`
    /// undone as mock matching undoes it (``ContentDecoding``, the same limit: `maxBodySize`, at
    /// most ``CatbirdHandler/decodedBodyLimit``, 8 MiB), so a body pattern in `count`, `find` and
    /// `wait` reads what it read when the request was matched. A body that cannot be decoded, or
    /// decodes past the limit, is matched as journaled, as a mock matched it as received.
    static func journalBodyDecoder(maxBodySize: Int) -> JournalBodyDecoder {
        let limit = min(maxBodySize, CatbirdHandler.decodedBodyLimit)
        return { body, contentEncoding in
            guard case let .decoded(bytes, _) = ContentDecoding.decode(body, contentEncoding: contentEncoding, limit: limit) else { return nil }
            return bytes
        }
    }
}
