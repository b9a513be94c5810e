import CatbirdDomain
import CatbirdHTTP
import Foundation

/// Answers a request from the mocks directory (`--mocks-dir`), after the dynamic mocks
/// (`docs/files.md`): the file's status and headers (sidecar, or 200 and a `Content-Type` from
/// the extension), an `ETag`, `304 Not Modified` to a `GET`/`HEAD` whose `If-None-Match`
/// names it, and byte ranges of a 200 (`Accept-Ranges: bytes`, 206 or 416 to a `GET` with
/// `Range`: ``RangedAnswer``, docs/files.md#byte-ranges).
struct FileServing: Sendable {
    let directory: FileMockDirectory
    /// Bytes of a body the journal keeps (`--journal-body-limit`): a file up to this size is sent
    /// from memory; a larger one is sent from its descriptor, never read whole, and only this
    /// many bytes of it are read for the journal.
    let journalBodyLimit: Int

    /// What a file answered: the response, and the file's path for the journal.
    struct Answer {
        var response: HTTPResponse
        var path: String
        /// For a file sent from disk: the first bytes the journal keeps and the full size.
        var journalBody: JournaledBody?
        /// The journal entry's `problem`: a broken sidecar's reason (its 500).
        var problem: String?
    }

    /// Fields a 304 repeats from the 200 it stands for (RFC 9110 §15.4.5).
    private static let notModifiedFields: Set<String> = ["cache-control", "content-location", "expires", "vary"]

    /// The file's answer, or nil when no file matches. A sidecar that cannot be read answers 500
    /// naming it (a broken fixture, not a reason to fall through to the upstream).
    func respond(to request: HTTPRequest) -> Answer? {
        let mock: FileMock
        do {
            guard let found = try directory.lookup(target: request.target, accept: request.headers.first("Accept")) else { return nil }
            mock = found
        } catch {
            // The file whose sidecar is broken named in the journal too, with why (tester finding
            // tester71b-F2: `filePath` was null and no `problem` said what answered the 500).
            var path = ""
            if case let .badSidecar(sidecar, _) = error, sidecar.hasSuffix(FileMockSidecar.suffix) {
                path = String(sidecar.dropLast(FileMockSidecar.suffix.count))
            }
            return Answer(response: APIError(status: 500, reason: "\(error)").response, path: path, problem: "\(error)")
        }
        var headers = Self.headers(of: mock)
        if mock.status == 200, request.method == "GET" || request.method == "HEAD",
           let condition = request.headers.first("If-None-Match"), mock.matches(ifNoneMatch: condition) {
            let kept = headers.fields.filter {
                $0.name.lowercased() == "etag" || Self.notModifiedFields.contains($0.name.lowercased())
            }
            return Answer(response: HTTPResponse(status: 304, headers: HTTPHeaders(kept)), path: mock.path)
        }
        // Byte ranges (docs/files.md#byte-ranges): `region` is the part of the file sent.
        var status = mock.status
        var region = 0..<mock.size
        // An empty file has no part to send: it goes out as given, as an empty mock does
        // (tester finding try10a F4: an empty file answered `bytes=0-` with 416).
        if Self.takesRanges(mock, headers: headers) {
            switch RangedAnswer.outcome(of: request, headers: headers, length: mock.size) {
            case .whole: break
            case let .part(part):
                status = 206
                region = part
                headers.add(name: "Content-Range", value: ByteRanges.contentRange(part, length: mock.size))
            case .unsatisfiable:
                return Answer(response: RangedAnswer.unsatisfiable(request, length: mock.size), path: mock.path)
            }
        }
        if region.count > journalBodyLimit {
            let prefix = FileHandle(forReadingAtPath: mock.path).flatMap { file in
                defer { try? file.close() }
                return (try? file.seek(toOffset: UInt64(region.lowerBound))).flatMap { try? file.read(upToCount: journalBodyLimit) }
            } ?? Data()
            let response = HTTPResponse(
                status: status, headers: headers,
                content: .file(path: mock.path, offset: UInt64(region.lowerBound), length: UInt64(region.count)))
            return Answer(response: response, path: mock.path, journalBody: JournaledBody(bytes: ArraySlice(prefix), size: region.count))
        }
        guard status == 206 else {
            guard let body = FileManager.default.contents(atPath: mock.path) else {
                return Answer(response: APIError(status: 500, reason: "file mock '\(mock.path)' cannot be read").response, path: mock.path)
            }
            return Answer(response: HTTPResponse(status: status, headers: headers, body: Array(body)), path: mock.path)
        }
        // Only the part is read, never the whole file (review of try8a F7: `bytes=0-1` of a
        // 300 MB file read all of it, 0.4-0.7 s and 300 MB per request). The part of the file
        // as it was found (its size read when it was looked up).
        guard let file = FileHandle(forReadingAtPath: mock.path) else {
            return Answer(response: APIError(status: 500, reason: "file mock '\(mock.path)' cannot be read").response, path: mock.path)
        }
        defer { try? file.close() }
        let part = (try? file.seek(toOffset: UInt64(region.lowerBound))).flatMap { try? file.read(upToCount: region.count) } ?? Data()
        guard part.count == region.count else {
            return Answer(response: APIError(status: 500, reason: "file mock '\(mock.path)' shrank while it was read").response, path: mock.path)
        }
        return Answer(response: HTTPResponse(status: status, headers: headers, body: Array(part)), path: mock.path)
    }

    /// The header fields a file's answer (a 200 to a request without `Range`) carries: the
    /// file's own, an `ETag` unless they have one, and `Accept-Ranges: bytes` when it takes byte
    /// ranges (``takesRanges(_:headers:)``). Record mode measures a recording's head with these
    /// before writing it (``UpstreamServing/replayHeadProblem(_:to:cors:)``): a replay adds the
    /// two fields the live answer may not have had (tester finding tester26a-F6).
    static func headers(of mock: FileMock) -> HTTPHeaders {
        var headers = HTTPHeaders(mock.headers)
        if !mock.headers.contains(where: { $0.name.lowercased() == "etag" }) {
            headers.add(name: "ETag", value: mock.entityTag)
        }
        return takesRanges(mock, headers: headers) ? RangedAnswer.advertising(headers) : headers
    }

    /// Whether `mock`, sent with `headers`, takes byte ranges (docs/files.md#byte-ranges): it has
    /// a byte to send a part of, and ``RangedAnswer/takesRanges(status:headers:)`` says so.
    private static func takesRanges(_ mock: FileMock, headers: HTTPHeaders) -> Bool {
        mock.size > 0 && RangedAnswer.takesRanges(status: mock.status, headers: headers)
    }

    /// What the 404's reason says about the mocks directory when no file answered `request`
    /// (``FileMockDirectory/missHint(target:accept:)``).
    func missHint(for request: HTTPRequest) -> String {
        directory.missHint(target: request.target, accept: request.headers.first("Accept"))
    }
}
