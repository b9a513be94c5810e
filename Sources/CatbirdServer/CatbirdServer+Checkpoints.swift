import CatbirdStorage
import CatbirdSupport

extension CatbirdServer {
    /// Logs a change of failing checkpoints (``StorageFaults/recordCheckpoint(_:)``): a warning
    /// when they begin (what failed, and that health reports it), an info line when one
    /// succeeds again. Called on the thread that ran the checkpoint.
    static func logCheckpoint(_ change: StorageFaults.CheckpointChange, log: Logger) {
        switch change {
        case let .began(fault):
            log.warning(
                "database: checkpoints fail (\(fault.reason); \(fault.detail)): changes are kept in the -wal, which grows, "
                    + "until a checkpoint succeeds; health reports it meanwhile (README.md#storage-faults)")
        case .ended:
            log.info("database: checkpoints succeed again")
        }
    }
}
