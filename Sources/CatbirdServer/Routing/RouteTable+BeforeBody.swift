import CatbirdDomain
import CatbirdHTTP

extension RouteTable {
    /// The refusal the route table would give `head` whatever its body, for a client that waits
    /// for `100 Continue` before it sends one (`Expect: 100-continue`, RFC 9110 §10.1.1; tester
    /// finding T19A-F5: the 100 went out and the client sent its body only to be refused for
    /// its route, method or Content-Type): no route (404), a method the path does not take (405
    /// with `Allow`), a route that reads no body (400), a query or path the route refuses (400),
    /// a route for every tenant asked by another caller or without its opt-in (401, 403, 400),
    /// a body that is not JSON by its Content-Type or is encoded (415). nil: none of these, the
    /// body is read (its route may still refuse it, and its slow lane may be full).
    func refusalBeforeBody(_ head: HTTPRequest, tenant: TenantID, isAdmin: Bool) -> HTTPResponse? {
        do throws(APIError) {
            let (route, parameter) = try route(for: head)
            try route.checkBody(head.method, sent: "a body was announced")
            _ = try context(of: head, route, parameter, tenant: tenant, isAdmin: isAdmin)
            try JSONBody.checkHead(of: head)
            return nil
        } catch {
            return error.response
        }
    }
}
