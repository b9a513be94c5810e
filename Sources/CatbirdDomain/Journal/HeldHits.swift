import CatbirdStorage

/// Mock hits the journal writer still owes the `mocks` table: those of entries it dropped
/// (their rows are lost, their hits are not), and of failed rounds given back. One count per
/// mock (hits are deltas, added up), so the memory is bounded by the number of mocks. Written by
/// the writer's next round that commits (``write(into:)``), a round of their own when no entry
/// comes (tried after each back-off while the writer fails), so the stored `hits` and
/// `remaining_limit` catch up with the mocks in memory once the database takes writes again
/// (T16-F1, T16-F2).
struct HeldHits: Sendable {
    /// Hits per mock id, and the ids in the order first held (the order they are written).
    private var counts: [Int64: Int] = [:]
    private var order: [Int64] = []

    /// No hits held.
    var isEmpty: Bool { counts.isEmpty }
    /// Mocks with held hits.
    var count: Int { counts.count }
    /// Hits held, every mock's.
    var hits: Int { counts.values.reduce(0, +) }

    /// `3 hits of 2 mocks`, for log lines.
    var describe: String {
        "\(hits.counted("hit", "hits")) of \(counts.count.counted("mock", "mocks"))"
    }

    /// Adds `count` hits of mock `id`.
    mutating func add(_ id: Int64, count: Int) {
        if let seen = counts[id] {
            counts[id] = seen + count
        } else {
            counts[id] = count
            order.append(id)
        }
    }

    /// Adds every hit `other` holds.
    mutating func add(_ other: HeldHits) {
        for id in other.order { add(id, count: other.counts[id]!) }
    }

    /// Adds the mock hits `entries` carry.
    mutating func add(hitsOf entries: [JournalEntry]) {
        for entry in entries {
            if let hit = entry.mockHit { add(hit.mockID, count: 1) }
        }
    }

    /// Records the hits in the `mocks` rows, inside the caller's transaction
    /// (``MockRecords/recordHits(_:id:count:)``: a mock whose limit they use up is deleted).
    func write(into db: Database) throws {
        for id in order { try MockRecords.recordHits(db, id: id, count: counts[id]!) }
    }
}
