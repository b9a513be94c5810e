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
}
