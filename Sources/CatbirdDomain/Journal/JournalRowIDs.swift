/// Which `journal_rows` id each committed journal entry got, by its ticket's sequence
/// (``JournalTicket``), for ``JournalWriter/amend(_:problem:filePath:)``.
///
/// The writer is the only one to insert journal rows, and a batch's rows get consecutive ids
/// (AUTOINCREMENT, one transaction: ``JournalRecords/insert(_:into:bodies:)``), as its entries
/// have consecutive sequences; so each committed batch is one ``Run``. A run that continues the
/// last one (the usual case: no batch was dropped in between, which takes sequences but no
/// ids) is merged into it, so this holds one run until a batch is dropped. The last
/// ``remembered`` runs are kept. Not thread-safe: the writer thread alone uses it.
struct JournalRowIDs {
    /// Entries `firstSequence ..< firstSequence + count`, written as rows `firstID …`.
    struct Run {
        var firstSequence: UInt64
        var count: UInt64
        var firstID: Int64

        /// The row id of the entry with `sequence`, or nil when it is not in this run.
        func rowID(of sequence: UInt64) -> Int64? {
            guard sequence >= firstSequence, sequence - firstSequence < count else { return nil }
            return firstID + Int64(sequence - firstSequence)
        }
    }

    /// Runs kept at most: 64 (each one is a dropped batch's gap).
    static let remembered = 64

    private var runs: [Run] = []

    /// Notes a committed batch's run.
    mutating func add(_ run: Run) {
        if let last = runs.last, last.firstSequence + last.count == run.firstSequence, last.firstID + Int64(last.count) == run.firstID {
            runs[runs.count - 1].count += run.count
            return
        }
        runs.append(run)
        if runs.count > Self.remembered { runs.removeFirst() }
    }

    /// The row id of the committed entry with `sequence`; nil when its batch was dropped (or
    /// is older than the runs kept).
    func rowID(of sequence: UInt64) -> Int64? {
        for run in runs.reversed() {
            if let id = run.rowID(of: sequence) { return id }
        }
        return nil
    }
}
