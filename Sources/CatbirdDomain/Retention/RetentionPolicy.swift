/// How long a shared host keeps tenants and journal rows (docs/operations.md#retention).
/// Each limit is off when nil.
public struct RetentionPolicy: Sendable, Equatable {
    /// A tenant (not the default tenant) whose last activity is older than this is dropped
    /// with its mocks and journal.
    public var tenantTTL: Duration?
    /// The journal, all tenants together, keeps at most this many rows; they go from the
    /// tenants holding more than their share (``JournalShares``), each its oldest first.
    public var journalMaxRows: Int?
    /// Journal rows older than this are deleted.
    public var journalMaxAge: Duration?
    /// The journal, all tenants together, keeps at most this many bytes (its rows' texts and
    /// blobs, shared bodies once: ``JournalBytes``); rows go from the tenants whose rows hold
    /// more than their share (``JournalShares``), each its oldest first.
    public var journalMaxBytes: Int?

    /// The defaults of `catbird serve`: tenants idle for 7 days dropped, journal rows kept for
    /// 7 days, at most 1,000,000 of them (about 150 MB of rows without bodies) and at most
    /// 2 GiB of them (without it, the rows' bodies of up to the journal body limit each, twice,
    /// could reach 128 GB: try8b F6).
    public static let defaults = RetentionPolicy(
        tenantTTL: .seconds(7 * 86_400), journalMaxRows: 1_000_000, journalMaxAge: .seconds(7 * 86_400),
        journalMaxBytes: defaultJournalMaxBytes)

    /// The default of ``journalMaxBytes``: 2 GiB.
    public static let defaultJournalMaxBytes = 2 << 30

    /// Nothing pruned.
    public static let off = RetentionPolicy(tenantTTL: nil, journalMaxRows: nil, journalMaxAge: nil)

    public init(tenantTTL: Duration?, journalMaxRows: Int?, journalMaxAge: Duration?, journalMaxBytes: Int? = nil) {
        self.tenantTTL = tenantTTL
        self.journalMaxRows = journalMaxRows
        self.journalMaxAge = journalMaxAge
        self.journalMaxBytes = journalMaxBytes
    }
}

/// What one pruning pass removed.
public struct RetentionPass: Sendable, Equatable {
    /// Journal rows deleted for being older than ``RetentionPolicy/journalMaxAge``.
    public var journalRowsByAge = 0
    /// Journal rows deleted for being over ``RetentionPolicy/journalMaxRows``.
    public var journalRowsOverLimit = 0
    /// Journal rows deleted for being over ``RetentionPolicy/journalMaxBytes``.
    public var journalRowsOverBytes = 0
    /// The journal's bytes as the byte limit last counted them (``JournalBytes``), after its
    /// deletions; nil when the limit is off or the count has not caught up yet. Not summed.
    public var journalBytes: Int?
    /// Tenants dropped for being idle longer than ``RetentionPolicy/tenantTTL``.
    public var idleTenants = 0
    /// The first ``namedIdleTenants`` of them, in the order dropped: the log names them (tester
    /// finding tester59a-F2: a shard owner could not find their tenant in "pruned 2 tenant(s)").
    public var idleTenantIDs: [TenantID] = []
    /// Idle tenants a pass names at most: 10.
    public static let namedIdleTenants = 10
    /// Journal rows and mocks that went with those tenants.
    public var idleTenantJournalRows = 0
    public var idleTenantMocks = 0
    /// True when the pass stopped at its statement budget with work left: run the next at once.
    public var unfinished = false

    public init() {}

    /// Whether nothing was removed.
    public var isEmpty: Bool {
        journalRowsByAge == 0 && journalRowsOverLimit == 0 && journalRowsOverBytes == 0 && idleTenants == 0 && idleTenantJournalRows == 0
            && idleTenantMocks == 0
    }

    public static func += (lhs: inout RetentionPass, rhs: RetentionPass) {
        lhs.journalRowsByAge += rhs.journalRowsByAge
        lhs.journalRowsOverLimit += rhs.journalRowsOverLimit
        lhs.journalRowsOverBytes += rhs.journalRowsOverBytes
        lhs.journalBytes = rhs.journalBytes ?? lhs.journalBytes
        lhs.idleTenants += rhs.idleTenants
        lhs.idleTenantIDs += rhs.idleTenantIDs.prefix(max(0, namedIdleTenants - lhs.idleTenantIDs.count))
        lhs.idleTenantJournalRows += rhs.idleTenantJournalRows
        lhs.idleTenantMocks += rhs.idleTenantMocks
    }
}
