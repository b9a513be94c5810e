import CatbirdHTTP

/// `GET /catbird/api/openapi.json`: the OpenAPI 3.1 document of every `/catbird` route, with a
/// schema and an example for each operation (docs/protocol.md#openapi-document). The document is
/// `Sources/CatbirdServer/OpenAPI/openapi.json`, compiled into the binary (SwiftPM
/// `embedInCode`), so serving it reads no file. Tests keep it true: every router route is in it,
/// every example validates and is accepted by the server, and Schemathesis fuzzes the server
/// from it (Tests/API).
enum OpenAPIRoute {
    /// The route's path.
    static let path = "/catbird/api/openapi.json"

    static func routes() -> [Route] {
        let response = HTTPResponse(
            status: 200, headers: ["Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-cache"],
            body: PackageResources.openapi_json)
        return [Route("GET", path) { _ in response }]
    }
}
