import CatbirdAPI
import Foundation
import XCTest

/// The wire types live in CatbirdWire; `import CatbirdAPI` must keep giving them under the
/// module-qualified names Catbird 0.11 code may spell out.
final class ModuleNameTests: XCTestCase {
    func testWireTypesAreReachableThroughCatbirdAPI() throws {
        let method: CatbirdAPI.RequestPattern.HTTPMethod = .GET  // nested only, as in 0.11
        let pattern = CatbirdAPI.RequestPattern(method: method, url: "/login", headers: ["X-Token": CatbirdAPI.PatternMatch.wildcard("a*")])
        let response = CatbirdAPI.ResponseMock(status: 201, body: Data("ok".utf8))
        let action = CatbirdAPI.CatbirdAction.update(pattern, response)
        let json = try JSONEncoder().encode(action)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: json) as? [String: Any])
        XCTAssertEqual(object["type"] as? String, "update")
        XCTAssertEqual((object["pattern"] as? [String: Any])?["method"] as? String, "GET")
        XCTAssertEqual(try JSONDecoder().decode(CatbirdAPI.CatbirdAction.self, from: json), action)
    }
}
