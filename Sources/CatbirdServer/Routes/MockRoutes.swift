import CatbirdDomain
import CatbirdHTTP
import CatbirdMatching
import CatbirdSupport
@_spi(Server) import CatbirdWire
import Foundation

/// `POST /catbird/api/mocks` (Catbird 0.11 control actions, docs/protocol.md#control-actions),
/// `GET /catbird/api/mocks` (the tenant's mocks, docs/protocol.md#control-actions),
/// `DELETE /catbird/api/mocks/{id}` (one of the tenant's mocks by id) and
/// `DELETE /catbird/api/mocks?all=true` (admin only, with the opt-in ``EveryTenantOptIn``:
/// every tenant's mocks; journals kept; docs/tenancy.md#admin).
enum MockRoutes {
    static func routes(_ dependencies: RouteDependencies) -> [Route] {
        [
            Route("POST", "/catbird/api/mocks", lane: .quick) { context in
                try control(context, dependencies)
            },
            // Streamed mock by mock (``MockListStream``): the answer is never held whole. HEAD
            // gets GET's length, its body never read.
            // `bodies=false`: each mock without its response body, its size as `responseBodySize`
            // (tester finding tester43a-F1: the page read every body every 5 s to show a count
            // and a table without them, 140 MB per read for 20 video mocks).
            Route("GET", "/catbird/api/mocks", query: ["bodies"]) { context in
                var bodies = true
                for (name, value) in context.query where name == "bodies" {
                    guard value == "true" || value == "false" else { throw APIError.badRequest("'bodies' must be 'true' or 'false'") }
                    bodies = value == "true"
                }
                let listing = MockListStream(
                    tenant: context.tenant.rawValue, mocks: dependencies.mocks.mocks(of: context.tenant), bodies: bodies)
                let length = context.request.method == "HEAD" ? UInt64(try listing.byteCount()) : nil
                return HTTPResponse(
                    status: 200, headers: ["Content-Type": JSONBody.contentType], content: .stream(length: length, listing.body))
            },
            // One mock by its id (try9a F11: WireMock's `DELETE /__admin/mappings/{id}`), the
            // caller's tenant only: 204, or 404 when it has no mock with that id.
            Route("DELETE", "/catbird/api/mocks/", maxSegments: 1, lane: .quick) { context in
                if let refusal = dependencies.admin.sharedFixturesRefusal(
                    tenant: context.tenant, isAdmin: context.isAdmin, request: context.request) { throw refusal }
                let text = context.segments[0]
                guard let id = Int64(text), id > 0, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
                    throw APIError.badRequest("a mock id is a whole number from 1 (an 'id' of GET /catbird/api/mocks), not \(JSONText.shortString(text))")
                }
                guard try dependencies.mocks.remove(id: id, tenant: context.tenant, since: context.request.receivedAt) else {
                    let place = context.tenant.named
                    throw APIError(status: 404, reason: "\(place) has no mock with id \(id) (GET /catbird/api/mocks lists its mocks)")
                }
                return HTTPResponse(status: 204)
            }.serving("/catbird/api/mocks/{id}"),
            // The "start clean" action of `deploy/xcode/start.sh` (docs/protocol.md#control-actions,
            // docs/tenancy.md#admin): mocks left by an earlier run
            // must not answer this one, while every journal stays queryable. 200
            // `{"removed": n}`; from a shard 403 (a shard clears its own mocks with removeAll);
            // without `all=true` 400 and nothing removed.
            Route(
                "DELETE", "/catbird/api/mocks", lane: .quick,
                everyTenant: EveryTenantAction(
                    refusal: "removing every tenant's mocks (a tenant removes its own with {\"type\":\"removeAll\"})",
                    action: "removes every tenant's mocks (a tenant removes its own with {\"type\":\"removeAll\"})")
            ) { _ in
                let removed = try dependencies.tenants.removeEveryTenantsMocks()
                // A warning, as the drop of every tenant (tester finding tester39b-F6).
                dependencies.log.warning("admin: removed every tenant's mocks: \(removed) mocks (DELETE /catbird/api/mocks?all=true)")
                return JSONBody.response(["removed": removed])
            },
        ]
    }

    /// update → 201, remove/removeAll → 204, all with empty bodies but the 201 of a mock no
    /// request can match (``NeverMatchingMock``), one behind a catch-all or a broader mock of its
    /// method and url (``CatchAllWarning``)
    /// or whose text body is base64 of binary (``TextBodyAsBase64Warning``), or whose delay is
    /// likely milliseconds (``MillisecondDelayWarning``), or whose limit is below 1
    /// (``LimitBelowOneWarning``), or whose wildcard or regexp url holds characters past ASCII
    /// (``NonASCIIURLWarning``), or that replaces a mock with a limit
    /// unspent (``ReplacedLimitWarning``): `{"warnings": [...]}`;
    /// a `remove` that removed nothing has the header ``RemovedNothing/header``. Each committed
    /// to SQLite before answering. A body of well-formed JSON that does not decode as an action
    /// but is a WireMock stub or MockServer expectation gets a 400 showing the action
    /// (``ForeignStubShape``); one not read as JSON (``JSONBodyRefusal/unreadable(_:)``) gets its own.
    /// Touches only the caller's tenant; with an admin token, the default tenant's mocks only
    /// for the admin (401 otherwise, ``AdminAccess/sharedFixturesRefusal(tenant:isAdmin:request:)``).
    /// - Throws: ``APIError`` for a body that does not decode or validate, `PatternError` for
    ///   an invalid regular expression or body pattern (``BodyPatternCheck``), `SQLiteError` when the change cannot be stored (the
    ///   router answers each, see ``ErrorAnswer``).
    private static func control(_ context: RouteContext, _ dependencies: RouteDependencies) throws -> HTTPResponse {
        if let refusal = dependencies.admin.sharedFixturesRefusal(
            tenant: context.tenant, isAdmin: context.isAdmin, request: context.request) { throw refusal }
        let action: CatbirdAction
        do {
            action = try JSONBody.read(CatbirdAction.self, from: context.request, shapeHint: shapeHint)
        } catch {
            // A WireMock stub or MockServer expectation: said so, with the Catbird action (try10a F3).
            // Only JSON is one: a body not read as JSON keeps its reason and is not parsed again.
            if case .undecodable = error, let foreign = ForeignStubShape.reason(for: context.request.body) {
                throw APIError.badRequest(foreign)
            }
            // An array of actions (tester finding tester58b-F4, tester60a-F10): said so, not only "must be an object".
            if case .undecodable = error, context.request.body.first(where: { !Self.jsonSpace.contains($0) }) == UInt8(ascii: "[") {
                throw APIError.badRequest(
                    #"the JSON body is an array, and this route takes one action per call: an object such as {"type": "update", "#
                        + #""pattern": …, "response": …}; post each action on its own, as the Catbird 0.11 client does"#)
            }
            throw error.error
        }
        switch action {
        case let .update(pattern, response):
            do {
                try MockUpdateCheck.check(pattern, response)
            } catch {
                throw error.error
            }
            // Read first: what the update replaces (advice only; another change may come between).
            let replaced = dependencies.mocks.mock(withPatternOf: pattern, tenant: context.tenant)
            let mock = try dependencies.mocks.update(pattern, response: response, tenant: context.tenant, since: context.request.receivedAt)
            // Its answer made here, off the workers: the first request after the 201 finds it.
            dependencies.sentAnswers.prepare(mock)
            // Kept as 0.11 keeps it, but said: 0.11's client ignores a 2xx answer's body.
            let neverMatching = NeverMatchingMock.warnings(for: pattern)
                + [ParallelIdPatternWarning.warning(for: pattern, tenant: context.tenant)].compactMap { $0 }
            let shadowed = dependencies.mocks.catchAll(before: mock, tenant: context.tenant).map(CatchAllWarning.warning(shadowedBy:))
                ?? dependencies.mocks.broader(before: mock, tenant: context.tenant).map(CatchAllWarning.warning(shadowedByBroader:))
                ?? dependencies.mocks.covering(before: mock, tenant: context.tenant).map(CatchAllWarning.warning(shadowedByCovering:))
                ?? dependencies.mocks.anyHost(before: mock, tenant: context.tenant).map(CatchAllWarning.warning(shadowedByAnyHost:))
            let notText = TextBodyAsBase64Warning.warning(for: response)
            let longDelay = MillisecondDelayWarning.warning(for: response)
            let onlyOnce = LimitBelowOneWarning.warning(for: response)
            let nonASCII = NonASCIIURLWarning.warning(for: pattern)
            let sequence = ReplacedLimitWarning.warning(replacing: replaced, with: response)
            let token = RedactedTokenWarning.mockWarning(for: pattern, admin: dependencies.admin)
            let wildcardClass = WildcardClassWarning.warning(for: pattern)
            let advice = [nonASCII, wildcardClass, shadowed, notText, longDelay, onlyOnce, sequence, token].compactMap { $0 }
            guard !neverMatching.isEmpty || !advice.isEmpty else { return HTTPResponse(status: 201) }
            // Named as reasons name it, look-alike ids told apart (tester finding tester53a-F1:
            // `tenant "\u{200B}wm"` and an NFD `café` logged as `wm` and `café`).
            let tenant = context.tenant.named
            for warning in neverMatching {
                dependencies.log.warning("\(tenant): a mock was added that no usual request can match: \(warning)")
            }
            if let shadowed { dependencies.log.warning("\(tenant): a mock was added behind a broader mock: \(shadowed)") }
            if let notText { dependencies.log.warning("\(tenant): a mock was added whose text body is binary: \(notText)") }
            if let longDelay { dependencies.log.warning("\(tenant): a mock was added with a delay of minutes: \(longDelay)") }
            if let nonASCII { dependencies.log.warning("\(tenant): a mock was added whose url pattern holds characters past ASCII: \(nonASCII)") }
            if let onlyOnce { dependencies.log.warning("\(tenant): a mock was added with a limit below 1: \(onlyOnce)") }
            if let sequence { dependencies.log.warning("\(tenant): a mock with a limit was replaced: \(sequence)") }
            if let wildcardClass { dependencies.log.warning("\(tenant): a mock was added whose wildcard class 0.11 reads otherwise: \(wildcardClass)") }
            if token != nil { dependencies.log.warning("\(tenant): a mock was added whose header pattern names the admin token") }
            let warnings = neverMatching + advice
            return JSONBody.response(["warnings": warnings], status: 201)
        case let .remove(pattern):
            // Not validated: a mock stored before method validation existed can still be removed.
            // 204 either way (0.11's answer), but one that removed nothing says so (try10a F18).
            guard try dependencies.mocks.remove(pattern, tenant: context.tenant, since: context.request.receivedAt) else {
                return HTTPResponse(status: 204, headers: [RemovedNothing.header: RemovedNothing.warning])
            }
            return HTTPResponse(status: 204)
        case .removeAll:
            let removed = try dependencies.mocks.removeAll(tenant: context.tenant, since: context.request.receivedAt)
            // Said with its count: the request's log line reads as a `remove`'s (tester finding
            // tester59a-F1). On a server with an admin token (a fleet's), the admin's removal of
            // the fixtures every shard falls back to is a warning, which the shipped unit logs.
            if context.tenant.isDefault, dependencies.admin.requiresToken, removed > 0 {
                dependencies.log.warning("admin: removed the default tenant's \(removed) mocks, which every shard falls back to (removeAll)")
            } else {
                dependencies.log.info("\(context.tenant.named): removeAll removed \(removed) mocks")
            }
            guard let ignored = IgnoredActionKeys.warning(forRemoveAll: context.request.body) else { return HTTPResponse(status: 204) }
            return HTTPResponse(status: 204, headers: [RemovedNothing.header: ignored])
        }
    }

    /// JSON's whitespace bytes (RFC 8259 section 2).
    private static let jsonSpace: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D]

    /// What to check when an action is well-formed JSON that does not decode.
    private static let shapeHint =
        "check that status, limit and delay are whole numbers and every other field is a string or object as documented"
}

extension MockRoutes {
    /// A mock as listed: its response's `limit` is the remaining limit, `createdAt` its
    /// stored time (always written by ``Timestamp/now()``, so shown unchanged).
    /// `withBody` false: its response's body left out (not copied).
    static func listed(_ mock: Mock, withBody: Bool = true) -> CatbirdMock {
        var response = withBody ? mock.response : mock.responseWithoutBody
        response.limit = mock.remainingLimit
        return CatbirdMock(
            id: mock.id, position: mock.position, pattern: mock.pattern.source, response: response,
            remainingLimit: mock.remainingLimit, hits: mock.hits,
            createdAt: Timestamp.date(from: mock.createdAt) ?? Date(timeIntervalSince1970: 0))
    }
}
