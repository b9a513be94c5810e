import Foundation
import XCTest

/// Reads the Catbird 0.11 client captures in `shared/fixtures/catbird-client-0.11/`.
public enum Fixtures {
    /// The package root, found relative to this source file.
    public static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .resolvingSymlinksInPath()
        .deletingLastPathComponent()   // CatbirdTestSupport
        .deletingLastPathComponent()   // Tests
        .deletingLastPathComponent()   // package root

    /// `Tests/Fixtures/catbird-client-0.11`: the repository's copy of the captures, so a clone
    /// anywhere runs the replay tests. ``sharedDirectory`` is where they come from.
    public static let directory: URL = packageRoot.appendingPathComponent("Tests/Fixtures/catbird-client-0.11")

    /// `../shared/fixtures/catbird-client-0.11` beside the package root, where the captures are
    /// maintained; present on developer machines and in CI, absent in a lone clone.
    public static let sharedDirectory: URL = packageRoot
        .appendingPathComponent("../shared/fixtures/catbird-client-0.11").standardizedFileURL

    /// One captured request: header lines and the raw body bytes.
    public struct HTTPRequest {
        public var requestLine: String
        public var headers: [(name: String, value: String)]
        public var body: Data

        public func header(_ name: String) -> String? {
            headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
    }

    /// Splits a raw request at the first CRLF CRLF.
    public static func request(named file: String) throws -> HTTPRequest {
        let data = try Data(contentsOf: directory.appendingPathComponent(file))
        let separator = Data("\r\n\r\n".utf8)
        guard let range = data.range(of: separator) else {
            throw FixtureError("\(file): no CRLFCRLF")
        }
        guard let head = String(data: data[..<range.lowerBound], encoding: .utf8) else {
            throw FixtureError("\(file): head is not UTF-8")
        }
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst()
        let headers = try lines.map { line -> (name: String, value: String) in
            guard let colon = line.firstIndex(of: ":") else { throw FixtureError("\(file): bad header \(line)") }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return HTTPRequest(requestLine: requestLine, headers: headers, body: Data(data[range.upperBound...]))
    }

    /// `cases.json`'s `cases` array.
    public static func cases() throws -> [[String: Any]] {
        let data = try Data(contentsOf: directory.appendingPathComponent("cases.json"))
        guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              let cases = root["cases"] as? [[String: Any]] else {
            throw FixtureError("cases.json has no cases array")
        }
        return cases
    }

    /// Every `.http` file name in the folder.
    public static func httpFiles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".http") }.sorted()
    }
}

public struct FixtureError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
