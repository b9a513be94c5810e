import CatbirdWire

extension RequestPattern {
    /// The UTF-8 bytes of the pattern's texts: the method, the url value, each header name and
    /// value, the body pattern's value and `equalTo` (as JSON text). What a mock's pattern adds
    /// to its tenant's `--max-tenant-mock-bytes` besides the response body
    /// (``TenantMockLimits``; docs/protocol.md#mock-limits): the server holds each of them in
    /// memory for as long as the mock stands, several times over once compiled (try9b F14).
    public var heldBytes: Int {
        var bytes = method.rawValue.utf8.count + url.value.utf8.count
        for (name, match) in headers { bytes += name.utf8.count + match.value.utf8.count }
        if let body {
            bytes += body.value.utf8.count + (body.equalTo?.jsonText.utf8.count ?? 0)
        }
        return bytes
    }
}
