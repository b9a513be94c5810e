import CatbirdHTTP
import CatbirdStorage
import CatbirdSupport
import Foundation

/// `GET /catbird/api/health`'s answer while the database file is at fault (a full disk, a file
/// made read-only, corruption, the file deleted, moved or replaced; README.md#storage-faults): `503 {"error": true, "status":
/// "degraded", "reason": "…", "since": "<UTC ISO 8601>"}`. The server keeps serving mocks from
/// memory meanwhile (with strict durability their answers are withheld instead, and the reason
/// says so); a control change that cannot be written is refused with 503 and journal rows
/// that cannot be written are dropped (each drop logged), until a write commits again. (Not
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
    static func degraded(_ fault: StorageFaults.Fault, durability: Durability) -> HTTPResponse {
        guard fault.isCorruption else { return degraded(reason: fault.reason, since: fault.since, durability: durability) }
        let mocks = switch durability {
        case .relaxed: "mocks are still served from memory"
        case .strict: "a mock's answer whose journal row cannot be written is withheld (503; --durability strict)"
        }
        return JSONBody.response(
            StorageHealth(
                reason: "\(fault.reason) (\(fault.detail)): what reads or writes the damaged pages fails until the file "
                    + "is restored; \(mocks)",
                since: Timestamp.string(from: fault.since)),
            status: 503)
    }

    static func degraded(reason: String, since: Date, durability: Durability) -> HTTPResponse {
        let mocks = switch durability {
        case .relaxed:
            "a control change that cannot be written is refused (503) and journal rows that cannot be written are dropped; "
                + "mocks are still served from memory"
        case .strict:
            "a control change that cannot be written is refused (503), and mocks' answers are withheld (503) while their "
                + "journal rows cannot be written, since --durability strict sends no answer unjournaled"
        }
        return JSONBody.response(StorageHealth(reason: "\(reason): \(mocks)", since: Timestamp.string(from: since)), status: 503)
    }
}
