@testable import CatbirdServer
import CatbirdTestSupport
import Foundation
import XCTest

/// The OpenAPI document at `GET /catbird/api/openapi.json` describes exactly the routes the
/// router knows (docs/protocol.md#openapi-document): a route added without its description, or a
/// description left after its route is gone, fails here. (Its schemas and examples are checked
/// against the running server by Tests/API/openapi_test.py, with Schemathesis.)
final class OpenAPIRouteCoverageTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-openapi-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: directory)
    }

    /// The document's operations as `METHOD path`, path templates as written (`{id}`).
    private func documentedOperations(port: UInt16) throws -> [(method: String, path: String)] {
        let answer = try RawHTTPClient(port: port).request("GET", "/catbird/api/openapi.json")
        XCTAssertEqual(answer.status, 200, answer.text)
        XCTAssertEqual(answer.header("Content-Type"), "application/json; charset=utf-8")
        let document = try XCTUnwrap(answer.object["paths"] as? [String: [String: Any]], "no paths in \(answer.text.prefix(200))")
        XCTAssertEqual(answer.object["openapi"] as? String, "3.1.0")
        return document.flatMap { path, item in
            item.keys.filter { ["get", "put", "post", "delete", "patch", "head", "options"].contains($0) }
                .map { (method: $0.uppercased(), path: path) }
        }
    }

    func testEveryRouterRouteIsInTheDocumentAndEveryDocumentedOperationIsARoute() throws {
        let server = try CatbirdServer(settings: .init(port: 0, databasePath: directory.appendingPathComponent("db.sqlite").path, logLevel: .warning))
        try server.start()
        defer { server.stop() }
        let documented = try documentedOperations(port: server.port)
        XCTAssertGreaterThan(server.controlRoutes.count, 15, "the router's routes could not be enumerated")

        for route in server.controlRoutes {
            let described = documented.contains { operation in
                guard operation.method == route.method else { return false }
                if !route.hasParameter { return operation.path == route.path }
                return operation.path.hasPrefix(route.path) && operation.path.dropFirst(route.path.count).hasPrefix("{")
            }
            XCTAssertTrue(described, "\(route.method) \(route.path)\(route.hasParameter ? "{…}" : "") is a route but not in Sources/CatbirdServer/OpenAPI/openapi.json")
        }
        for operation in documented {
            // A template's parameters filled with a sample value, then matched as the router would.
            let concrete = operation.path.replacingOccurrences(of: #"\{[^}]+\}"#, with: "1", options: .regularExpression)
            let routed = server.controlRoutes.contains { $0.method == operation.method && $0.match(Substring(concrete)) != nil }
            XCTAssertTrue(routed, "\(operation.method) \(operation.path) is documented but no route answers it")
        }
    }
}
