import CatbirdDomain
import CatbirdHTTP

/// Health and version (the web page is ``WebPageRoutes``):
/// - `GET /catbird/api/health` → `200 {"status":"ok"}` when the database answers, else 503;
/// - `GET /catbird/api/info` → `{"version", "domain", "github"}` (Catbird 0.11 shape, docs/protocol.md#tenants-and-health)
///   plus `"retention"` (``RetentionInfo``, docs/operations.md#retention);
/// - `GET /catbird/version` → `Version: x.y.z` (text).
enum InfoRoutes {
    static func routes(_ dependencies: RouteDependencies) -> [Route] {
        [
            Route("GET", "/catbird/api/health") { _ in
                do {
                    try dependencies.tenants.checkReadable()
                    return JSONBody.response(["status": "ok"])
                } catch {
                    dependencies.log.error("health check failed: \(error)")
                    throw APIError(status: 503, reason: "database unavailable")
                }
            },
            Route("GET", "/catbird/api/info") { _ in
                JSONBody.response(ServerInfo(
                    version: CatbirdServer.version, domain: dependencies.origin.url,
                    github: "https://github.com/RedMadRobot/catbird",
                    retention: RetentionInfo(policy: dependencies.settings.retention, pruned: dependencies.pruner.pruned)))
            },
            Route("GET", "/catbird/version") { _ in
                HTTPResponse(
                    status: 200, headers: ["Content-Type": "text/plain; charset=utf-8"],
                    body: Array("Version: \(CatbirdServer.version)".utf8))
            },
        ]
    }
}
