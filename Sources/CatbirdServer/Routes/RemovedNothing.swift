/// What a `remove` that found no mock with its pattern answers beside its 204 (tester finding
/// try10a F18): Catbird 0.11 answers 204 whether or not a mock was removed, and its client
/// expects it, so the status stays; a 204 has no body to hold a `warnings` array (RFC 9110
/// §15.3.5), so the warning is a header (docs/protocol.md#control-actions).
enum RemovedNothing {
    /// The header's name.
    static let header = "X-Catbird-Warning"

    /// The header's value (ASCII: no tenant id or pattern value is echoed in a header).
    static let warning = "nothing was removed: this tenant has no mock with this pattern (method, url kind and value, "
        + "header patterns and body pattern are compared as update compares them; GET /catbird/api/mocks lists the mocks)"
}
