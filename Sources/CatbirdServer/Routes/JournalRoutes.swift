import CatbirdDomain
import CatbirdHTTP
import CatbirdMatching
import Foundation

/// The tenant's request journal (spec part 3):
/// - `GET /catbird/api/requests?since=&limit=&method=&url=&status=&answeredBy=` → ``JournalPage``
///   (`nextSince` always present, `mockId` `null` when no mock answered)
/// - `DELETE /catbird/api/requests` → `{"deleted": n}`
/// - `POST /catbird/api/requests/count` with `{"pattern": RequestPattern}` → `{"count": n}`, the
///   mocks' matching rules (a header pattern matches the header's first value); 400 when
///   matching takes longer than ``Journal/defaultCountTimeLimit`` (a catastrophic regexp)
enum JournalRoutes {
    static func routes(_ services: Services) -> [Route] {
        [
            Route("GET", "/catbird/api/requests") { context throws(APIError) in
                let query = try journalQuery(from: context.request.query ?? "")
                return try storage(services) { JSONBody.response(try services.journal.page(of: context.tenant, query)) }
            },
            Route("DELETE", "/catbird/api/requests") { context throws(APIError) in
                try storage(services) { JSONBody.response(["deleted": try services.journal.clear(context.tenant)]) }
            },
            Route("POST", "/catbird/api/requests/count") { context throws(APIError) in
                let body = try JSONBody.decode(CountBody.self, from: context.request, describe: ControlAction.describe)
                let pattern: CompiledRequestPattern
                do { pattern = try CompiledRequestPattern(body.pattern) } catch { throw .badRequest("\(error)") }
                return try storage(services) {
                    do {
                        return JSONBody.response(["count": try services.journal.count(of: context.tenant, matching: pattern)])
                    } catch let error as JournalCountError {
                        throw APIError.badRequest(error.description)
                    }
                }
            },
        ]
    }

    private struct CountBody: Decodable {
        let pattern: RequestPattern
    }

    /// Parses the listing's query parameters.
    /// - Throws: 400 naming the parameter when a value is not of its type.
    static func journalQuery(from query: Substring) throws(APIError) -> JournalQuery {
        var result = JournalQuery()
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            let name = String(parts[0])
            let rawValue = parts.count > 1 ? String(parts[1]) : ""
            let value = rawValue.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? rawValue
            switch name {
            case "since":
                guard let since = Int64(value), since >= 0 else { throw .badRequest("'since' must be a journal id (a whole number >= 0)") }
                result.since = since
            case "limit":
                guard let limit = Int(value), (1...JournalQuery.maxLimit).contains(limit) else {
                    throw .badRequest("'limit' must be a whole number from 1 to \(JournalQuery.maxLimit)")
                }
                result.limit = limit
            case "method": result.method = value
            case "url": result.urlContains = value
            case "status":
                guard let status = Int(value) else { throw .badRequest("'status' must be a whole number") }
                result.status = status
            case "answeredBy":
                guard let answeredBy = AnsweredBy(rawValue: value) else {
                    throw .badRequest("'answeredBy' must be one of \(AnsweredBy.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                result.answeredBy = answeredBy
            default:
                throw .badRequest("unknown query parameter '\(name)' (known: since, limit, method, url, status, answeredBy)")
            }
        }
        return result
    }
}

/// Runs a storage call, turning a storage failure into a logged 500 that leaks nothing.
func storage(_ services: Services, _ body: () throws -> HTTPResponse) throws(APIError) -> HTTPResponse {
    do {
        return try body()
    } catch let error as APIError {
        throw error
    } catch {
        services.log.error("storage failure: \(error)")
        throw APIError(status: 500, reason: "storage failure (see the server log)")
    }
}
