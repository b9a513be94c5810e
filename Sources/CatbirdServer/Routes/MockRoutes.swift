import CatbirdDomain
import CatbirdHTTP
import CatbirdMatching
import Foundation

/// `POST /catbird/api/mocks` (Catbird 0.11 control actions, spec 1.1) and
/// `GET /catbird/api/mocks` (the tenant's mocks, spec part 3).
enum MockRoutes {
    static func routes(_ services: Services) -> [Route] {
        [
            Route("POST", "/catbird/api/mocks") { context throws(APIError) in
                try control(context, services)
            },
            Route("GET", "/catbird/api/mocks") { context in
                JSONBody.response(MockList(tenant: context.tenant.rawValue, mocks: services.mocks.mocks(of: context.tenant).map(MockView.init)))
            },
        ]
    }

    /// update → 201, remove/removeAll → 204, all with empty bodies; each committed to SQLite
    /// before answering. Touches only the caller's tenant.
    private static func control(_ context: RouteContext, _ services: Services) throws(APIError) -> HTTPResponse {
        let action = try JSONBody.decode(ControlAction.self, from: context.request, describe: ControlAction.describe)
        do {
            switch action {
            case let .update(pattern, response):
                try validate(response)
                try services.mocks.update(pattern, response: response, tenant: context.tenant)
                return HTTPResponse(status: 201)
            case let .remove(pattern):
                try services.mocks.remove(pattern, tenant: context.tenant)
                return HTTPResponse(status: 204)
            case .removeAll:
                try services.mocks.removeAll(tenant: context.tenant)
                return HTTPResponse(status: 204)
            }
        } catch let error as APIError {
            throw error
        } catch let error as PatternError {
            throw .badRequest(error.description)
        } catch {
            services.log.error("control action failed: \(error)")
            throw APIError(status: 500, reason: "could not store the change: \(error)")
        }
    }

    /// The longest `delay` accepted, in seconds (one day).
    static let maxDelaySeconds = 86_400

    /// Rejects what cannot be sent as a final HTTP response: a status outside 200...599 (1xx
    /// are interim), header names that are not tokens, values with control characters other
    /// than tab, a delay below zero or above ``maxDelaySeconds``.
    private static func validate(_ response: ResponseMock) throws(APIError) {
        guard (200...599).contains(response.status) else {
            throw .badRequest("'response.status' must be between 200 and 599, not \(response.status)")
        }
        for (name, value) in response.headers {
            guard !name.isEmpty, name.utf8.allSatisfy(isTokenCharacter) else {
                throw .badRequest("response header name \(JSONText.string(name)) is not a valid HTTP field name")
            }
            guard !value.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) else {
                throw .badRequest("response header \(JSONText.string(name)) has a control character (such as a line break) in its value")
            }
        }
        if let delay = response.delay, !(0...maxDelaySeconds).contains(delay) {
            throw .badRequest("'response.delay' must be from 0 to \(maxDelaySeconds) seconds, not \(delay)")
        }
    }

    /// RFC 9110 §5.6.2 tchar.
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}

/// The JSON of `GET /catbird/api/mocks`.
struct MockList: Encodable {
    let tenant: String
    let mocks: [MockView]
}

/// One mock as listed: id, position, pattern and response (Catbird 0.11 shapes), remaining
/// limit (null = unlimited) and hits.
struct MockView: Encodable {
    let id: Int64
    let position: Int64
    let pattern: RequestPattern
    let response: ResponseMock
    let remainingLimit: Int?
    let hits: Int
    let createdAt: String

    init(_ mock: Mock) {
        id = mock.id
        position = mock.position
        pattern = mock.pattern.source
        var response = mock.response
        response.limit = mock.remainingLimit
        self.response = response
        remainingLimit = mock.remainingLimit
        hits = mock.hits
        createdAt = mock.createdAt
    }
}
