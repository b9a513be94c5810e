import Foundation

extension Catbird {
    /// Drops the caller's tenant: all its mocks and its whole request journal.
    ///
    /// With a ``parallelId`` this is `DELETE /catbird/api/tenants/{parallelId}` (the id
    /// percent-encoded). The default tenant (``parallelId`` nil or empty) has no id to drop,
    /// so for it this sends ``CatbirdAction/removeAll`` and then `clearJournal()` — two
    /// calls, not atomic.
    ///
    /// - Returns: true when the tenant was dropped (always for the default tenant); false
    ///   when the server had no such tenant (a 404: the shard never sent anything, or it was
    ///   already dropped).
    /// - Throws: ``CatbirdError`` (such as 401 for the default tenant on a server with an
    ///   admin token, without it), `URLError` on a transport failure.
    @discardableResult
    @_disfavoredOverload
    public func dropTenant() throws -> Bool {
        let parallelId = self.parallelId
        return try drop(parallelId, sentAs: parallelId)
    }

    /// Drops the caller's tenant: all its mocks and its whole request journal; see the
    /// synchronous form for the details, the default tenant's included.
    ///
    /// - Returns: true when the tenant was dropped; false when the server had no such tenant.
    /// - Throws: ``CatbirdError``, `URLError` on a transport failure or cancellation.
    @available(macOS 10.15, iOS 13, tvOS 13, watchOS 6, *)
    @discardableResult
    @_disfavoredOverload
    public func dropTenant() async throws -> Bool {
        let parallelId = self.parallelId
        return try await drop(parallelId, sentAs: parallelId)
    }

    /// Runs the calls that drop the tenant `id` (``APICall/dropTenant(_:)``) for the tenant
    /// `sender` (nil: the default tenant), with the admin token when `admin`.
    /// - Returns: the last call's answer.
    func drop(_ id: String?, sentAs sender: String?, admin: Bool = false) throws -> Bool {
        var dropped = true
        for call in APICall.dropTenant(id) { dropped = try perform(admin ? call.asAdmin : call, parallelId: sender) }
        return dropped
    }

    /// The `async` form of ``drop(_:sentAs:admin:)``.
    @available(macOS 10.15, iOS 13, tvOS 13, watchOS 6, *)
    func drop(_ id: String?, sentAs sender: String?, admin: Bool = false) async throws -> Bool {
        var dropped = true
        for call in APICall.dropTenant(id) { dropped = try await perform(admin ? call.asAdmin : call, parallelId: sender) }
        return dropped
    }
}

extension APICall where Output == Bool {
    /// The calls that drop the tenant `parallelId`, to run in order for that tenant; the last
    /// one's answer is the result. For a shard: `DELETE /catbird/api/tenants/{id}` (2xx → true,
    /// 404 → false). For the default tenant (nil or empty id), which has no such route:
    /// ``CatbirdAction/removeAll`` and then the journal's deletion, both → true.
    static func dropTenant(_ parallelId: String?) -> [APICall] {
        guard let parallelId, !parallelId.isEmpty else {
            return [APICall<Void>.send(.removeAll).returning(true), APICall<Int>.clearJournal.returning(true)]
        }
        var call = APICall(
            method: "DELETE", path: ["catbird", "api", "tenants", parallelId], decode: { _ in true },
            recover: { error in error.statusCode == 404 ? false : nil })
        call.successStatuses = [204]
        return [call]
    }
}
