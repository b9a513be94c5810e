import CatbirdDomain
import CatbirdHTTP
import Foundation

/// Answers a request from the mocks directory (`--mocks-dir`), after the dynamic mocks
/// (`docs/files.md`): the file's status and headers (sidecar, or 200 and a `Content-Type` from
/// the extension), an `ETag`, and `304 Not Modified` to a `GET`/`HEAD` whose `If-None-Match`
/// names it.
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
        var journalBody: (bytes: [UInt8], size: Int)?
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
            return Answer(response: APIError(status: 500, reason: "\(error)").response, path: "")
        }
        var headers = HTTPHeaders(mock.headers)
        if !mock.headers.contains(where: { $0.name.lowercased() == "etag" }) {
            headers.add(name: "ETag", value: mock.entityTag)
        }
        if mock.status == 200, request.method == "GET" || request.method == "HEAD",
           let condition = request.headers.first("If-None-Match"), mock.matches(ifNoneMatch: condition) {
            let kept = headers.fields.filter {
                $0.name.lowercased() == "etag" || Self.notModifiedFields.contains($0.name.lowercased())
            }
            return Answer(response: HTTPResponse(status: 304, headers: HTTPHeaders(kept)), path: mock.path)
        }
        if mock.size > journalBodyLimit {
            let prefix = FileHandle(forReadingAtPath: mock.path).flatMap { try? $0.read(upToCount: journalBodyLimit) } ?? Data()
            let response = HTTPResponse(
                status: mock.status, headers: headers, content: .file(path: mock.path, offset: 0, length: UInt64(mock.size)))
            return Answer(response: response, path: mock.path, journalBody: (Array(prefix), mock.size))
        }
        guard let body = FileManager.default.contents(atPath: mock.path) else {
            return Answer(response: APIError(status: 500, reason: "file mock '\(mock.path)' cannot be read").response, path: mock.path)
        }
        return Answer(response: HTTPResponse(status: mock.status, headers: headers, body: Array(body)), path: mock.path)
    }

    /// What the 404's reason says about the mocks directory when no file answered `request`
    /// (``FileMockDirectory/missHint(target:accept:)``).
    func missHint(for request: HTTPRequest) -> String {
        directory.missHint(target: request.target, accept: request.headers.first("Accept"))
    }
}
