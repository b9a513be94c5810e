import CatbirdDomain

/// The answer of `GET /catbird/api/info`: Catbird 0.11's three keys plus retention.
struct ServerInfo: Encodable {
    let version: String
    let domain: String
    let github: String
    let retention: RetentionInfo
}

/// `"retention"` in `/catbird/api/info` (docs/operations.md#retention): the limits in force
/// (null when off; durations in seconds) and what was pruned since the server started.
/// `{"tenantTTLSeconds": 604800, "journalMaxRows": 1000000, "journalMaxAgeSeconds": 604800,
///   "journalMaxBytes": 2147483648, "journalBytes": 1234567,
///   "pruned": {"journalRowsByAge": 0, "journalRowsOverLimit": 0, "journalRowsOverBytes": 0,
///   "idleTenants": 0, "idleTenantMocks": 0, "idleTenantJournalRows": 0}}`
/// (`journalBytes`: the journal's bytes as the byte limit last counted them, null while it is
/// off or has not counted yet).
struct RetentionInfo: Encodable {
    let tenantTTLSeconds: Int64?
    let journalMaxRows: Int?
    let journalMaxAgeSeconds: Int64?
    let journalMaxBytes: Int?
    let journalBytes: Int?
    let pruned: Pruned

    struct Pruned: Encodable {
        let journalRowsByAge: Int
        let journalRowsOverLimit: Int
        let journalRowsOverBytes: Int
        let idleTenants: Int
        let idleTenantMocks: Int
        let idleTenantJournalRows: Int
    }

    init(policy: RetentionPolicy, pruned: RetentionPass) {
        tenantTTLSeconds = policy.tenantTTL?.components.seconds
        journalMaxRows = policy.journalMaxRows
        journalMaxAgeSeconds = policy.journalMaxAge?.components.seconds
        journalMaxBytes = policy.journalMaxBytes
        journalBytes = policy.journalMaxBytes == nil ? nil : pruned.journalBytes
        self.pruned = Pruned(
            journalRowsByAge: pruned.journalRowsByAge, journalRowsOverLimit: pruned.journalRowsOverLimit,
            journalRowsOverBytes: pruned.journalRowsOverBytes,
            idleTenants: pruned.idleTenants, idleTenantMocks: pruned.idleTenantMocks,
            idleTenantJournalRows: pruned.idleTenantJournalRows)
    }

    /// Nulls written out (a limit that is off is `null`, not missing).
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(tenantTTLSeconds, forKey: .tenantTTLSeconds)
        try container.encode(journalMaxRows, forKey: .journalMaxRows)
        try container.encode(journalMaxAgeSeconds, forKey: .journalMaxAgeSeconds)
        try container.encode(journalMaxBytes, forKey: .journalMaxBytes)
        try container.encode(journalBytes, forKey: .journalBytes)
        try container.encode(pruned, forKey: .pruned)
    }

    private enum CodingKeys: String, CodingKey {
        case tenantTTLSeconds, journalMaxRows, journalMaxAgeSeconds, journalMaxBytes, journalBytes, pruned
    }
}
