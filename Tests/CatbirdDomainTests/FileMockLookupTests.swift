import CatbirdDomain
import Foundation
import XCTest

/// Finding a file mock on disk: Accept candidates, sidecars, entity tags, confinement.
final class FileMockLookupTests: XCTestCase {
    func testAcceptPicksTheFileAndExtensionGivesTheType() throws {
        let directory = try TemporaryMocksDirectory()
        try directory.write("api/books.json", "[1]")
        try directory.write("api/books.html", "<p>")
        try directory.write("api/books", "bare")
        let mocks = try directory.mocks(table: "application/json json\ntext/html html\n")
        let json = try XCTUnwrap(mocks.lookup(target: "/api/books?x=1", accept: "text/html;q=0.5, application/json"))
        XCTAssertEqual(json.path, mocks.root + "/api/books.json")
        XCTAssertEqual(json.status, 200)
        XCTAssertEqual(json.headers.map(\.name), ["Content-Type"])
        XCTAssertEqual(json.headers.first?.value, "application/json")
        XCTAssertEqual(json.size, 3)
        XCTAssertEqual(try mocks.lookup(target: "/api/books", accept: "text/html")?.path, mocks.root + "/api/books.html")
        XCTAssertEqual(try mocks.lookup(target: "/api/books", accept: "image/png")?.path, mocks.root + "/api/books")
        XCTAssertEqual(try mocks.lookup(target: "/api/books", accept: nil)?.headers.count, 0)
        XCTAssertNil(try mocks.lookup(target: "/api", accept: nil), "a directory is not a file mock")
    }

    func testSidecarGivesStatusHeadersAndTag() throws {
        let directory = try TemporaryMocksDirectory()
        try directory.write("created.json", "{}")
        try directory.write(
            "created.json" + FileMockSidecar.suffix,
            #"{"status": 201, "headers": {"ETag": "\"v1\"", "Set-Cookie": ["a=1", "b=2"], "Content-Length": "2"}}"#)
        let mock = try XCTUnwrap(try directory.mocks().lookup(target: "/created.json", accept: nil))
        XCTAssertEqual(mock.status, 201)
        XCTAssertEqual(mock.headers.map(\.name), ["ETag", "Set-Cookie", "Set-Cookie"])
        XCTAssertEqual(mock.entityTag, "\"v1\"")
        XCTAssertTrue(mock.matches(ifNoneMatch: "\"v0\", W/\"v1\""))
        XCTAssertTrue(mock.matches(ifNoneMatch: "*"))
        XCTAssertFalse(mock.matches(ifNoneMatch: "\"v2\""))
    }

    func testBadSidecarIsAnErrorNamingTheFile() throws {
        let directory = try TemporaryMocksDirectory()
        try directory.write("x.json", "{}")
        try directory.write("x.json" + FileMockSidecar.suffix, #"{"status": "ok"}"#)
        XCTAssertThrowsError(try directory.mocks().lookup(target: "/x.json", accept: nil)) { error in
            XCTAssertTrue("\(error)".contains("x.json.catbird-response.json"), "\(error)")
            XCTAssertTrue("\(error)".contains("status"), "\(error)")
        }
    }

    func testGeneratedTagChangesWithTheFile() throws {
        let directory = try TemporaryMocksDirectory()
        try directory.write("a.txt", "one")
        let first = try XCTUnwrap(try directory.mocks().lookup(target: "/a.txt", accept: nil)).entityTag
        try directory.write("a.txt", "three")
        let second = try XCTUnwrap(try directory.mocks().lookup(target: "/a.txt", accept: nil)).entityTag
        XCTAssertNotEqual(first, second)
        XCTAssertTrue(first.hasPrefix("\"") && first.hasSuffix("\""))
    }

    func testSymlinksMayNotLeaveTheDirectory() throws {
        let outside = try TemporaryMocksDirectory()
        try outside.write("secret.txt", "secret")
        let directory = try TemporaryMocksDirectory()
        try directory.write("inside.txt", "inside")
        try FileManager.default.createSymbolicLink(atPath: directory.path + "/leak.txt", withDestinationPath: outside.path + "/secret.txt")
        try FileManager.default.createSymbolicLink(atPath: directory.path + "/up", withDestinationPath: outside.path)
        try FileManager.default.createSymbolicLink(atPath: directory.path + "/alias.txt", withDestinationPath: directory.path + "/inside.txt")
        let mocks = try directory.mocks()
        XCTAssertNil(try mocks.lookup(target: "/leak.txt", accept: nil))
        XCTAssertNil(try mocks.lookup(target: "/up/secret.txt", accept: nil))
        XCTAssertEqual(try mocks.lookup(target: "/alias.txt", accept: nil)?.path, mocks.root + "/inside.txt")
    }

    func testDirectoryMustExist() {
        XCTAssertThrowsError(try FileMockDirectory(path: "/nonexistent/catbird-mocks", mediaTypes: MediaTypes(table: ""))) { error in
            XCTAssertTrue("\(error)".contains("/nonexistent/catbird-mocks"))
        }
    }
}
