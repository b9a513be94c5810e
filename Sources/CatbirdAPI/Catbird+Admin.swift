import CatbirdParallelId
import Foundation

extension Catbird {
    /// One tenant on the server, as `GET /catbird/api/tenants` lists it (docs/protocol.md,
    /// Tenants and health).
    public struct Tenant: Codable, Hashable, Sendable {
        /// The parallel id; `""` for the default tenant.
        public var id: String
        /// Mocks in the tenant's table.
        public var mocks: Int
        /// Entries in the tenant's journal.
        public var requests: Int
        /// When the tenant first appeared (UTC, ISO 8601 with milliseconds, as sent).
        public var createdAt: String
        /// Its last control change or journaled request (UTC, ISO 8601 with milliseconds).
        public var lastActivityAt: String
    }

    /// Every tenant on the server with its counts, default tenant first, then by id
    /// (`GET /catbird/api/tenants`, a page of 1,000 tenants a call, asked for until the last:
    /// tester finding T11-F3). An admin call on a client made without a parallel id: sent
    /// with ``adminToken`` when the server has one (else 401). A client with a ``parallelId``
    /// sends it and gets the server's answer to that shard, its own tenant's row alone (none
    /// before its first mock or request), never the admin's list, whatever its token (tester
    /// finding tester48c-F2: a shard's client listed every tenant).
    ///
    /// - Throws: ``CatbirdError``, `URLError` on a transport failure, ``CatbirdError`` for an
    ///   unreadable answer. A server with an admin token answers a caller without it with the
    ///   default tenant's row alone and `"admin": false`; that answer is thrown as a
    ///   ``CatbirdError`` with status 401, not returned as the whole list (tester finding
    ///   try10a F14: a clean-up script read "one tenant" and concluded the server was clean).
    ///   Its reason says whether the call carried no token or one the server did not take
    ///   (tester finding T18C-F10).
    @_disfavoredOverload
    public func tenants() throws -> [Tenant] {
        var tenants: [Tenant] = []
        var after: String?
        let shard = scopedParallelId
        while true {
            let page = try perform(APICall.tenants(after: after, sendsToken: adminToken != nil, asShard: shard != nil), parallelId: shard)
            tenants += page.tenants
            guard let next = page.next(after: after) else { return tenants }
            after = next
        }
    }

    /// Every tenant on the server; see the synchronous form.
    ///
    /// - Throws: ``CatbirdError``, `URLError` on a transport failure or cancellation,
    ///   ``CatbirdError`` for an unreadable answer.
    @available(macOS 10.15, iOS 13, tvOS 13, watchOS 6, *)
    @_disfavoredOverload
    public func tenants() async throws -> [Tenant] {
        var tenants: [Tenant] = []
        var after: String?
        let shard = scopedParallelId
        while true {
            let page = try await perform(APICall.tenants(after: after, sendsToken: adminToken != nil, asShard: shard != nil), parallelId: shard)
            tenants += page.tenants
            guard let next = page.next(after: after) else { return tenants }
            after = next
        }
    }

    /// Drops the tenant `id`, its mocks and its journal (`DELETE /catbird/api/tenants/{id}`).
    /// An admin call on a client made without a parallel id: sent with ``adminToken`` when
    /// set. A client with a ``parallelId`` sends it (and no token), so it drops only its own
    /// tenant: another `id` is answered 403 and thrown (tester finding tester48c-F2: a shard's
    /// client dropped another shard's mocks and journal on a server without a token).
    /// `id` is read by the parallel-id rule (``parallelId``: spaces, tabs and line breaks at
    /// either end dropped).
    ///
    /// An `id` that names no tenant (`""`, or only spaces, tabs or line breaks) is refused by
    /// the client, nothing sent, as the server refuses `DELETE /catbird/api/tenants/` (tester
    /// finding tester44c-F4: it emptied the default tenant, every shard's shared fixtures and
    /// its journal, when an unset variable gave `""`). The default tenant is emptied by
    /// ``dropTenant()`` on a client made without a parallel id.
    ///
    /// - Returns: true when the tenant was dropped; false when the server had no such tenant.
    /// - Throws: ``CatbirdError`` (400 for an `id` that names no tenant, 403 for another
    ///   tenant's on a client with a parallel id), `URLError` on a transport failure.
    @discardableResult
    @_disfavoredOverload
    public func dropTenant(id: String) throws -> Bool {
        let shard = scopedParallelId
        return try drop(try Self.tenantToDrop(id), sentAs: shard, admin: shard == nil)
    }

    /// Drops the tenant `id`; see the synchronous form.
    ///
    /// - Returns: true when the tenant was dropped; false when the server had no such tenant.
    /// - Throws: ``CatbirdError``, `URLError` on a transport failure or cancellation.
    @available(macOS 10.15, iOS 13, tvOS 13, watchOS 6, *)
    @discardableResult
    @_disfavoredOverload
    public func dropTenant(id: String) async throws -> Bool {
        let shard = scopedParallelId
        return try await drop(try Self.tenantToDrop(id), sentAs: shard, admin: shard == nil)
    }

    /// ``parallelId`` (read once) when it names a shard, nil for the default tenant's client
    /// (the admin's on a server without a token).
    private var scopedParallelId: String? {
        parallelId.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// `id` read by the parallel-id rule; throws 400 when it names no tenant.
    private static func tenantToDrop(_ id: String) throws -> String {
        switch ParallelIdRule.read(id) {
        case let .tenant(tenant):
            return tenant
        case .defaultTenant:
            throw CatbirdError(refusal: "dropTenant(id: \(id.debugDescription)) names no tenant: the default tenant has no "
                + "id to drop (refused by the client, nothing sent); empty it with dropTenant() on a client made without a parallel id")
        case let .refused(reason):
            throw CatbirdError(refusal: "dropTenant(id:): \(reason) (refused by the client, nothing sent)")
        }
    }
}

extension APICall where Output == TenantList {
    /// `GET /catbird/api/tenants`: the page after the tenant `after` (the first page when nil);
    /// `sendsToken` tells whether the call carries ``Catbird/adminToken``, for the error of an
    /// answer as to a caller that is not the admin.
    /// `asShard`: sent with a shard's parallel id, whose answer is its own row (not the
    /// admin's list, and without the token).
    static func tenants(after: String?, sendsToken: Bool, asShard: Bool) -> APICall {
        let call = APICall(method: "GET", path: ["catbird", "api", "tenants"], query: after.map { [("after", $0)] } ?? []) { data in
            let list = try JSONDecoder().decode(TenantList.self, from: data)
            guard asShard || list.admin != false else { throw CatbirdError.notAdmin(sentToken: sendsToken) }
            return list
        }
        return asShard ? call : call.asAdmin
    }
}

extension CatbirdError {
    /// A tenant listing answered as to a caller that is not the admin (`"admin": false`, in a
    /// 200 answer), thrown as a 401; the reason depends on whether the call carried a token.
    static func notAdmin(sentToken: Bool) -> CatbirdError {
        let what = sentToken
            ? "the server did not take the admin token this call sent (Catbird.adminToken is not its --admin-token: "
                + "an old token, or a stray space or character in the value?)"
            : "the server has an admin token, and this call carried none (set Catbird.adminToken, or CATBIRD_ADMIN_TOKEN "
                + "for the launch helpers, to the server's --admin-token)"
        return CatbirdError(
            statusCode: 401, reason: what + "; it answered with the default tenant's row alone and \"admin\": false, not the whole list")
    }
}

/// The body of `GET /catbird/api/tenants`: a page of at most 1,000 tenants by id (tester
/// finding T11-F3), so ``Catbird/tenants()`` asks for pages until the last.
struct TenantList: Decodable, Sendable {
    let tenants: [Catbird.Tenant]
    /// Whether the caller was the admin; absent from older servers' answers.
    let admin: Bool?
    /// Whether more tenants follow this page; absent from older servers' answers (which list
    /// every tenant at once).
    let hasMore: Bool?
    /// The page's last id, to ask for the next page with, while ``hasMore``.
    let nextAfter: String?

    /// The `after` of the next page, nil after the last one (or when the server would not
    /// move past `after`, so a wrong answer cannot loop for ever).
    func next(after: String?) -> String? {
        guard hasMore == true, let nextAfter, nextAfter != after else { return nil }
        return nextAfter
    }
}
