import CatbirdDomain
import CatbirdHTTP
import CatbirdSupport
import Synchronization

/// The connection slots one tenant's parked requests may hold: at most 1/``slotShare`` of the
/// server's connection limit (at least ``minimumPerTenant``), so that the health check and other
/// tenants always get in (docs/tenancy.md#fair-shares).
///
/// A parked request holds its connection, and no connection at work is closed for room
/// (``CatbirdHTTP``'s connection watch closes only idle ones and stalled uploads). Unbounded,
/// one tenant's 400 requests to a mock with `"delay": 86400` (or 400 long polls) took every
/// slot of a server whose limit was 192, and `GET /catbird/api/health` and every other tenant
/// timed out (tester finding T19A-F2). So the requests that park waiting for something outside
/// the server's own work each take a ``Place`` of their tenant's first, and one that finds its
/// tenant's places taken is answered at once with a 429 (``APIError/parkedRequestsBusy(_:limit:connectionLimit:)``):
/// a mock's `delay`, a journal long poll (`wait=`), `POST /catbird/api/requests/wait`, a
/// forwarded request. Work on the control and matching lanes is bounded by those lanes.
///
/// A place counts from its admission until its answer goes out (``Place/release()``, told by
/// the answer's delivery, or by a delay's end) or its client leaves: a delay's client is told
/// at once (its delay ends as the client having left); the client of a request answered later
/// is found gone through its responder (``HTTPResponder/isWaiting``) when its tenant's places
/// are counted (``admit(_:)`` at the bound, ``total``), since a long poll or
/// wait whose client left lingers until its own timeout.
final class ParkedRequests: Sendable {
    /// A tenant's parked requests hold at most this fraction of the connection slots: 1/8
    /// (``CatbirdHTTP/HTTPServer/slotShareDivisor``, the rule the connection watch keeps for uploads too).
    static let slotShare = HTTPServer.slotShareDivisor
    /// A tenant may always park this many, whatever the connection limit: 4.
    static let minimumPerTenant = HTTPServer.minimumSlotShare

    /// The server's connection limit (``CatbirdHTTP/HTTPServer/Configuration/connectionLimit``).
    let connectionLimit: Int
    /// The most requests one tenant may have parked at once.
    let limit: Int
    /// The most requests all tenants together may have parked at once: the connection limit
    /// less 1/``slotShare`` of it (at least ``limit``), so that eight or more tenants at their
    /// share still leave slots for the health check and requests answered at once (tester
    /// finding tester22b-F2: nine tenant ids at their share of 1/8 each took every slot, and the
    /// health check and every other tenant timed out).
    let totalLimit: Int
    /// Requests refused for their tenant's bound since the start (`catbird_parked_refused_total`).
    let refused = Atomic<Int>(0)
    private let state = Mutex(State())

    /// Each tenant's places, by number; held weakly, so a place dropped unreleased (a deferred
    /// answer whose start was never called, the server stopping) still gives itself back.
    private struct State {
        var nextNumber: UInt64 = 0
        var byTenant: [TenantID: [UInt64: WeakPlace]] = [:]
        /// Places held, all tenants together.
        var held = 0
    }

    private struct WeakPlace {
        weak var place: Place?
    }

    /// - Parameter connectionLimit: the server's connection limit, in connections.
    init(connectionLimit: Int) {
        self.connectionLimit = connectionLimit
        limit = HTTPServer.slotShare(of: connectionLimit)
        totalLimit = HTTPServer.slotsForAllHolders(of: connectionLimit)
    }

    /// A place for one of `tenant`'s parked requests, or nil when it already has ``limit``, or
    /// all tenants together have ``totalLimit`` (counted after letting go of those whose client
    /// left: the tenant's, and at the total every tenant's); a refusal is counted in ``refused``.
    func admit(_ tenant: TenantID) -> Place? {
        if let place = take(tenant) { return place }
        sweep(tenant)
        if let place = take(tenant) { return place }
        if isAtTotal {
            for other in state.withLock({ Array($0.byTenant.keys) }) where other != tenant { sweep(other) }
            if let place = take(tenant) { return place }
        }
        refused.add(1, ordering: .relaxed)
        return nil
    }

    /// Whether all tenants together hold ``totalLimit`` places.
    private var isAtTotal: Bool { state.withLock { $0.held >= totalLimit } }

    /// ``admit(_:)``, throwing the tenant's 429 when its places are taken.
    func admitting(_ tenant: TenantID) throws(APIError) -> Place {
        guard let place = admit(tenant) else { throw refusal(tenant) }
        return place
    }

    /// The 429 for a request of `tenant` refused a place: its own places taken
    /// (``APIError/parkedRequestsBusy(_:limit:connectionLimit:)``), else all tenants' together
    /// (``APIError/allParkedRequestsBusy(limit:connectionLimit:)``).
    func refusal(_ tenant: TenantID) -> APIError {
        let ownHeld = state.withLock { $0.byTenant[tenant]?.count ?? 0 }
        return ownHeld >= limit
            ? .parkedRequestsBusy(tenant, limit: limit, connectionLimit: connectionLimit)
            : .allParkedRequestsBusy(limit: totalLimit, connectionLimit: connectionLimit)
    }

    /// How many requests all tenants have parked, those whose client left not counted
    /// (`catbird_parked_requests`).
    var total: Int {
        let tenants = state.withLock { Array($0.byTenant.keys) }
        for tenant in tenants { sweep(tenant) }
        return state.withLock { $0.byTenant.values.reduce(0) { $0 + $1.count } }
    }

    private func take(_ tenant: TenantID) -> Place? {
        state.withLock { state in
            let held = state.byTenant[tenant]?.count ?? 0
            guard held < limit, state.held < totalLimit else { return nil }
            state.held += 1
            state.nextNumber += 1
            let place = Place(owner: self, tenant: tenant, number: state.nextNumber)
            state.byTenant[tenant, default: [:]][state.nextNumber] = WeakPlace(place: place)
            return place
        }
    }

    /// Releases `tenant`'s places whose client left. The places are asked outside the lock
    /// (each asks its request's connection state, under the server's own lock).
    private func sweep(_ tenant: TenantID) {
        let places = state.withLock { $0.byTenant[tenant]?.values.compactMap(\.place) ?? [] }
        for place in places where place.clientLeft { place.release() }
    }

    fileprivate func giveBack(_ number: UInt64, of tenant: TenantID) {
        state.withLock { state in
            guard state.byTenant[tenant]?.removeValue(forKey: number) != nil else { return }
            state.held -= 1
            if state.byTenant[tenant]?.isEmpty == true { state.byTenant[tenant] = nil }
        }
    }

    /// One parked request's place among its tenant's; given back by ``release()`` (idempotent),
    /// or when it is released from memory.
    final class Place: Sendable {
        private let owner: ParkedRequests
        private let tenant: TenantID
        private let number: UInt64
        private let released = Atomic<Bool>(false)
        /// The responder of the request answered later that holds it, held weakly (nil: a delay's,
        /// or not started yet).
        private let responder = Mutex(WeakResponder())

        private struct WeakResponder {
            var watched = false
            weak var value: HTTPResponder?
        }

        fileprivate init(owner: ParkedRequests, tenant: TenantID, number: UInt64) {
            self.owner = owner
            self.tenant = tenant
            self.number = number
        }

        /// Its request is answered later through `responder`: once that no longer waits (its
        /// client left, or it was answered), the place is free.
        func watch(_ responder: HTTPResponder) {
            self.responder.withLock {
                $0.watched = true
                $0.value = responder
            }
        }

        /// Whether its request's client is known to have left (``watch(_:)``'s responder no longer waits).
        fileprivate var clientLeft: Bool {
            let (watched, responder) = self.responder.withLock { ($0.watched, $0.value) }
            guard watched else { return false }
            return !(responder?.isWaiting ?? false)
        }

        /// Gives the place back (its answer went out, or its client left). Idempotent.
        func release() {
            guard released.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
            owner.giveBack(number, of: tenant)
        }

        deinit {
            release()
        }
    }
}

extension ParkedRequests {
    /// `answer`, holding `place` while it is parked: a deferred answer's responder is watched
    /// (``Place/watch(_:)``) and the place given back once its answer is delivered (sent,
    /// sent instead, or nothing sent). Any other answer gives the place back at once.
    static func holding(_ place: Place, _ answer: HTTPAnswer) -> HTTPAnswer {
        guard case let .later(watch, start) = answer else {
            place.release()
            return answer
        }
        return HTTPAnswer.later(watching: watch) { responder in
            place.watch(responder)
            start(responder)
        }.whenDelivered { _ in place.release() }
    }
}

extension APIError {
    /// 429 for a parked request refused because all tenants' parked requests hold `limit` of the
    /// server's `connectionLimit` slots (``ParkedRequests/totalLimit``). Sent with `Connection:
    /// close`, as ``parkedRequestsBusy(_:limit:connectionLimit:)``.
    static func allParkedRequestsBusy(limit: Int, connectionLimit: Int) -> APIError {
        APIError(
            status: 429,
            reason: "the server already has \(limit) requests parked, all tenants together (mock delays, journal long polls with "
                + "wait=, requests/wait calls, forwarded requests, mock and file answers over 64 KiB being sent): at most \(limit) of its \(connectionLimit) connection slots, so "
                + "that the health check and requests answered at once always get in (docs/tenancy.md#fair-shares); retry when "
                + "one has answered",
            closesConnection: true)
    }

    /// 429: `tenant` already has `limit` requests parked, its share of the server's
    /// `connectionLimit` connection slots (``ParkedRequests``). Sent with `Connection: close`:
    /// the refused client's keep-alive connection would otherwise hold the slot the share keeps
    /// free until it idled a second, and hundreds of them kept the health check out for 13 s
    /// (tester finding tester67b-F2).
    static func parkedRequestsBusy(_ tenant: TenantID, limit: Int, connectionLimit: Int) -> APIError {
        let who = tenant.isDefault ? "the default tenant (no \(TenantID.headerName))" : "tenant \(JSONText.shortString(tenant.rawValue))"
        return APIError(
            status: 429,
            reason: "\(who) already has \(limit) requests parked (mock delays, journal long polls with wait=, "
                + "requests/wait calls, forwarded requests, mock and file answers over 64 KiB being sent): at most \(limit) per tenant, 1/\(ParkedRequests.slotShare) of the "
                + "server's \(connectionLimit) connection slots, so that the health check and other tenants always get in "
                + "(docs/tenancy.md#fair-shares); retry when one has answered",
            closesConnection: true)
    }
}
