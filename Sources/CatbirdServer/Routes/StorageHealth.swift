import CatbirdHTTP
import CatbirdStorage
import CatbirdSupport
import Foundation

/// `GET /catbird/api/health`'s answer while the database file is at fault (a full disk, a file
/// made read-only, corruption; README.md#storage-faults): `503 {"error": true, "status":
/// "degraded", "reason": "…", "since": "<UTC ISO 8601>"}`. The server keeps serving mocks from
/// memory meanwhile; control changes are refused with 503 and journal rows are dropped (each
/// drop logged), until a write commits again. A corrupt file stays reported until
/// `PRAGMA quick_check` passes again (``StorageFaults``): meanwhile what reads or writes its
/// damaged pages fails, and the rest works.
struct StorageHealth: Encodable {
    let error = true
    let status = "degraded"
    let reason: String
    let since: String

    static func degraded(_ fault: StorageFaults.Fault) -> HTTPResponse {
        guard fault.isCorruption else { return degraded(reason: fault.reason, since: fault.since) }
        return JSONBody.response(
            StorageHealth(
                reason: "\(fault.reason) (\(fault.detail)): what reads or writes the damaged pages fails until the file "
                    + "is restored; mocks are still served from memory",
                since: Timestamp.string(from: fault.since)),
            status: 503)
    }

    static func degraded(reason: String, since: Date) -> HTTPResponse {
        JSONBody.response(
            StorageHealth(
                reason: "\(reason): control changes are refused and the journal is not being written; "
                    + "mocks are still served from memory",
                since: Timestamp.string(from: since)),
            status: 503)
    }
}
