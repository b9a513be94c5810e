import CatbirdDomain
import XCTest

/// Accept weights and the media-type table picking the extensions tried.
final class AcceptCandidateTests: XCTestCase {
    func testPreferredTypesOrderByWeightThenPosition() {
        XCTAssertEqual(
            AcceptHeader.preferredTypes("text/html;q=0.5, application/json, image/png;q=0.9, text/plain;q=0, */*;q=0.1"),
            ["application/json", "image/png", "text/html", "*/*"])
        XCTAssertEqual(AcceptHeader.preferredTypes("Application/XML; charset=utf-8; q=bad"), ["application/xml"])
        XCTAssertEqual(AcceptHeader.preferredTypes(" , ;q=1"), [])
    }

    func testTableParsingKeepsOrderAndSkipsComments() {
        let table = MediaTypes(table: "# comment\napplication/json\t\tjson\nimage/jpeg jpeg jpg jpe\ntext/x-empty\nimage/x-jpeg jpg\n")
        XCTAssertEqual(table.extensions(for: "image/jpeg"), ["jpeg", "jpg", "jpe"])
        XCTAssertEqual(table.extensions(for: "Application/JSON; charset=utf-8"), ["json"])
        XCTAssertEqual(table.type(forFileName: "a.JPG"), "image/jpeg")
        XCTAssertNil(table.type(forFileName: ".jpg"))
        XCTAssertEqual(table.extensions(for: "text/x-empty"), [])
    }

    func testSystemTableIsTheRealOne() throws {
        let table = try XCTUnwrap(MediaTypes.system(), "scripts/setup.sh installs media-types (/etc/mime.types)")
        XCTAssertEqual(table.type(forFileName: "x.json"), "application/json")
        XCTAssertTrue(table.extensions(for: "text/html").contains("html"))
        XCTAssertTrue(table.extensions(for: "image/webp").contains("webp"))
        XCTAssertGreaterThan(table.typeByExtension.count, 500)
    }

    func testCandidatesFollowAcceptThenBare() throws {
        let directory = try TemporaryMocksDirectory()
        let mocks = try directory.mocks(table: "application/json json\ntext/html html htm\nimage/png png\n")
        XCTAssertEqual(
            mocks.candidates(target: "/a/b", accept: "text/html;q=0.4, application/json, */*;q=0.1"),
            ["a/b.json", "a/b.html", "a/b.htm", "a/b"])
        XCTAssertEqual(mocks.candidates(target: "/a/b.png", accept: "application/json"), ["a/b.png"])
        XCTAssertEqual(mocks.candidates(target: "/a/b", accept: nil), ["a/b"])
        XCTAssertEqual(mocks.candidates(target: "/../b", accept: "application/json"), [])
    }

    /// try8a F6: a structured syntax suffix (RFC 6839) finds its base type's file after the
    /// type's own extensions; the real table lists `application/vnd.api+json` with none.
    func testStructuredSyntaxSuffixAddsTheBaseTypesExtensions() throws {
        let table = MediaTypes(table: "application/json json\napplication/xml xml\napplication/json-patch+json json-patch\napplication/vnd.api+json\n")
        XCTAssertEqual(table.extensions(for: "application/vnd.api+json"), ["json"])
        XCTAssertEqual(table.extensions(for: "application/hal+json; charset=utf-8"), ["json"])
        XCTAssertEqual(table.extensions(for: "application/json-patch+json"), ["json-patch", "json"])
        XCTAssertEqual(table.extensions(for: "application/atom+XML"), ["xml"])
        XCTAssertEqual(table.extensions(for: "application/x+"), [], "no suffix after the +")
        XCTAssertEqual(table.extensions(for: "application/x+unknown"), [], "a suffix with no base type in the table")
        let system = try XCTUnwrap(MediaTypes.system())
        for type in ["application/vnd.api+json", "application/hal+json", "application/vnd.github+json"] {
            XCTAssertEqual(system.extensions(for: type).last, "json", type)
        }
        let directory = try TemporaryMocksDirectory()
        let mocks = try directory.mocks(table: "application/json json\napplication/vnd.api+json\n")
        XCTAssertEqual(mocks.candidates(target: "/api/books", accept: "application/vnd.api+json"), ["api/books.json", "api/books"])
    }

    /// try8b F13's exact inputs: an `Accept` of as many distinct types of /etc/mime.types as fit
    /// in 27,000 bytes, most extensions first (thousands of names, 30 ms of a worker per request
    /// before), and one type written about 1,000 times: each extension once, from at most 16
    /// distinct types, at most 64 names, then the bare name.
    func testA27KBAcceptMakesAtMost64NamesThenBare() throws {
        let text = try String(contentsOfFile: "/etc/mime.types", encoding: .utf8)
        var types: [(type: String, extensions: Int)] = []
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            if parts.count > 1 { types.append((String(parts[0]), parts.count - 1)) }
        }
        types = types.enumerated().sorted { $0.element.extensions != $1.element.extensions ? $0.element.extensions > $1.element.extensions : $0.offset < $1.offset }.map(\.element)
        var all = ""
        for (type, _) in types {
            if all.utf8.count + type.utf8.count + 1 > 27000 { break }
            all += (all.isEmpty ? "" : ",") + type
        }
        let repeated = Array(repeating: types[0].type, count: 27000 / (types[0].type.utf8.count + 1)).joined(separator: ",")
        let directory = try TemporaryMocksDirectory()
        let mocks = try directory.mocks(table: text)

        let names = mocks.candidates(target: "/api/deep/x", accept: all)
        XCTAssertGreaterThan(all.utf8.count, 26000)
        XCTAssertEqual(names.count, FileMockDirectory.acceptNamesTried + 1, "\(names.count) names")
        XCTAssertEqual(Set(names).count, names.count, "no name twice")
        XCTAssertEqual(names.last, "api/deep/x")
        let table = MediaTypes(table: text)
        let firstTypes = AcceptHeader.preferredTypes(all).prefix(FileMockDirectory.acceptTypesTried)
        XCTAssertEqual(
            Array(names.dropLast()),
            Array(firstTypes.flatMap(table.extensions(for:)).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
                .prefix(FileMockDirectory.acceptNamesTried).map { "api/deep/x." + $0 }),
            "the first types' extensions, in preference order")

        let once = mocks.candidates(target: "/api/deep/x", accept: repeated)
        XCTAssertEqual(once, table.extensions(for: types[0].type).map { "api/deep/x." + $0 } + ["api/deep/x"])
        XCTAssertEqual(AcceptHeader.preferredTypes(repeated, distinctAtMost: 16), [types[0].type])
    }

    /// Tester finding T15B-F4, the exact target: with `--files-with-query`,
    /// `/foo?x=.catbird-response` with `Accept: application/json` tried
    /// `foo?x=.catbird-response.json`, the sidecar of `/foo?x=`, which replay served as a body
    /// and record mode wrote over. No candidate is a sidecar's (or a temporary file's) name now.
    func testAnAcceptExtensionNeverMakesAReservedName() throws {
        let directory = try TemporaryMocksDirectory()
        let mocks = try directory.mocks(table: "application/json json\ntext/plain tmp txt\n", includesQuery: true)
        XCTAssertEqual(
            mocks.candidates(target: "/foo?x=.catbird-response", accept: "application/json"), ["foo?x=.catbird-response"])
        XCTAssertEqual(mocks.candidates(target: "/.catbird-recording-1-2", accept: "text/plain"), [".catbird-recording-1-2.txt", ".catbird-recording-1-2"])
        try directory.write("foo?x=", "ok /foo")
        try directory.write("foo?x=.catbird-response.json", #"{"status":200,"headers":{"Content-Type":"text/plain"}}"#)
        XCTAssertNil(try mocks.lookup(target: "/foo?x=.catbird-response", accept: "application/json"), "a sidecar is never a body")
        XCTAssertNotNil(try mocks.lookup(target: "/foo?x=", accept: "application/json"))
    }
}
