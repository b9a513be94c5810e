import CatbirdDomain
import CatbirdHTTP
import CatbirdStorage
import CatbirdSupport
import Foundation

/// `GET /catbird/api/health`'s answer while the database file is at fault (a full disk, a file
/// made read-only, corruption, the file deleted, moved or replaced, its -wal deleted, checkpoints failing;
/// README.md#storage-faults): `503 {"error": true, "status":
/// "degraded", "reason": "…", "since": "<UTC ISO 8601>"}`. The server keeps serving mocks from
/// memory meanwhile (with strict durability their answers are withheld instead, and the reason
/// says so); a control change that cannot be written is refused with 503, and journal rows
/// that cannot be written stay queued (a busy or full file; dropped, each drop logged, when the
/// file was deleted or replaced, or when the full queue waited too long), until a write commits again. (Not
/// "control changes are refused": a change that still fits, e.g. into pages freed meanwhile,
/// commits and answers 201; try6a F5.) A corrupt file stays reported until
/// `PRAGMA quick_check` passes again (``StorageFaults``): meanwhile what reads or writes its
/// damaged pages fails, and the rest works.
struct StorageHealth: Encodable {
    let error = true
    let status = "degraded"
    let reason: String
    let since: String

    /// - Parameter durability: what mocks do meanwhile depends on it: served from memory
    ///   (relaxed), or their answers withheld with 503 when their journal rows cannot be written
    ///   (strict: no answer leaves unjournaled; README.md#durability).
    /// - Parameter writerFailure: the journal writer's failure meanwhile, if any: the rows it
    ///   dropped are counted in the reason (tester26b-F6, tester25a-F8: under a file-size limit
    ///   the reason said rows "stay queued" while 292,691 of them had been dropped).
    static func degraded(_ fault: StorageFaults.Fault, durability: Durability, writerFailure: JournalWriterFailure? = nil) -> HTTPResponse {
        let since = Timestamp.string(from: fault.since)
        switch fault.kind {
        case .walGone:
            return JSONBody.response(
                StorageHealth(
                    reason: "\(fault.reason) (\(fault.detail)): SQLite goes on writing to the -wal it has open, which has no name "
                        + "now, so a stop (SIGTERM) still copies every change into the file, but a crash would lose every change "
                        + "since the last checkpoint; stop the server and start it again (README.md#storage-faults)",
                    since: since),
                status: 503)
        case .shmGone:
            return JSONBody.response(
                StorageHealth(
                    reason: "\(fault.reason) (\(fault.detail)): it holds SQLite's index of the -wal and the locks its connections "
                        + "share; this server goes on with the one it has open, which has no name now, but another program that "
                        + "opens the database now (the sqlite3 shell, a backup tool, a checkpoint) makes a new one, does not see this "
                        + "server's readers and writer, and can corrupt the file; let nothing else open it, and stop the server and "
                        + "start it again: a stop (SIGTERM) keeps every change (README.md#storage-faults)",
                    since: since),
                status: 503)
        case .checkpoint:
            return JSONBody.response(
                StorageHealth(
                    reason: "checkpoints fail: \(fault.reason) (\(fault.detail)): every change since is kept in the -wal, which "
                        + "grows until a checkpoint succeeds, and nothing is lost, but a start refuses a database file it cannot "
                        + "write; make the file writable again (chattr -i, its mode, a read-write mount), which ends this by "
                        + "itself (README.md#storage-faults)",
                    since: since),
                status: 503)
        case .file, .writing:
            return degraded(reason: fault.reason, since: fault.since, durability: durability, droppedRows: writerFailure?.droppedRows ?? 0)
        case .corruption:
            let mocks = switch durability {
            case .relaxed: "mocks are still served from memory"
            case .strict: "a mock's answer whose journal row cannot be written is withheld (503; --durability strict)"
            }
            return JSONBody.response(
                StorageHealth(
                    reason: "\(fault.reason) (\(fault.detail)): what reads or writes the damaged pages fails until the file "
                        + "is restored; \(mocks)",
                    since: since),
                status: 503)
        }
    }

    /// The journal writer's rounds fail (``JournalWriterFailure``): what it says depends on what
    /// became of their rows. Kept queued (the file busy or full): they and their mock hits are
    /// written once the database takes writes again, and journal reads that would miss them
    /// answer 503. Dropped (the file deleted or replaced, a statement error, strict durability's
    /// third attempt): nothing of them waits, and the writer checks the database at its back-off's
    /// pace, so this ends by itself once the database takes writes again. Rows dropped since the
    /// failure began are counted either way (tester finding T19B-F12: a dropped row's failure said
    /// "1 row were dropped" as its cause and claimed its rows "stay queued").
    static func degraded(journalWriter failure: JournalWriterFailure, durability: Durability) -> HTTPResponse {
        let mocks = switch durability {
        case .relaxed: "mocks are still served from memory"
        case .strict: "mocks' answers are withheld until their journal rows are written (--durability strict)"
        }
        let lost = droppedMeanwhile(failure.droppedRows, durability: durability)
        let what =
            if failure.attemptsFailed > 0 {
                // A round still being tried (tester39b-F1: health said ok while strict answers waited 15 s).
                "the round under way failed \(failure.attemptsFailed) of its \(failure.attemptsAllowed) attempts and is tried "
                    + "again; after the last its rows are dropped, each drop logged"
                    + (durability == .strict ? ", and their withheld answers get 503" : "")
            } else if failure.keptQueued {
                "its rows and mock hits stay queued and are written once the database takes writes again; journal reads that "
                    + "would miss them answer 503" + (failure.droppedRows > 0 ? "; \(lost)" : "")
            } else {
                (failure.droppedRows > 0 ? "\(lost); " : "")
                    + "the writer tries the database again every 2 s at most, so this ends by itself once it takes writes again"
            }
        let rounds = failure.rounds > 0 ? ", \(failure.rounds.counted("failed round", "failed rounds"))" : ""
        let reason = "the journal writer cannot write (\(failure.reason))\(rounds): \(what); \(mocks)"
        return JSONBody.response(StorageHealth(reason: reason, since: Timestamp.string(from: failure.since)), status: 503)
    }

    /// The `--mocks-dir` directory is gone (``FileMockDirectory/rootGone(recording:)``, `gone`
    /// its reason) since `since`: no file mock is served, or no answer recorded (`recording`),
    /// until it is back, while dynamic mocks and the journal work.
    static func degraded(mocksDirectory gone: String, since: Date, recording: Bool) -> HTTPResponse {
        let meanwhile = recording
            ? "requests are still forwarded and answered"
            : "a request no dynamic mock answers gets 404 meanwhile"
        return JSONBody.response(
            StorageHealth(
                reason: gone + "; \(meanwhile), dynamic mocks and the journal work as before", since: Timestamp.string(from: since)),
            status: 503)
    }

    /// `N journal rows were dropped meanwhile (lost; each drop is logged; mock hits are kept and
    /// written later)` (the hits' clause with relaxed durability only): the rows a failing
    /// writer dropped (``JournalWriterFailure/droppedRows``).
    private static func droppedMeanwhile(_ rows: Int, durability: Durability) -> String {
        "\(rows.counted("journal row", "journal rows")) \(rows == 1 ? "was" : "were") dropped meanwhile (lost; each drop is logged"
            + (durability == .relaxed ? "; mock hits are kept and written later)" : ")")
    }

    static func degraded(reason: String, since: Date, durability: Durability, droppedRows: Int = 0) -> HTTPResponse {
        let mocks = switch durability {
        case .relaxed:
            "a control change that cannot be written is refused (503); journal rows and mock hits that cannot be written "
                + "stay queued and are written once the database takes writes again (rows of a file deleted or replaced are "
                + "dropped, each drop logged); mocks are still served from memory"
        case .strict:
            "a control change that cannot be written is refused (503), and mocks' answers are withheld (503) while their "
                + "journal rows cannot be written, since --durability strict sends no answer unjournaled"
        }
        let dropped = droppedRows > 0 ? "; " + droppedMeanwhile(droppedRows, durability: durability) : ""
        return JSONBody.response(StorageHealth(reason: "\(reason): \(mocks)\(dropped)", since: Timestamp.string(from: since)), status: 503)
    }
}
