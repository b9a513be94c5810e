/// Why a mocks directory cannot be used or a file mock cannot be read or recorded.
public enum FileMockError: Error, Sendable, CustomStringConvertible {
    /// The mocks directory does not exist or is not a directory.
    case notADirectory(path: String)
    /// A sidecar file is not in the documented format (`docs/files.md#sidecar`).
    case badSidecar(path: String, reason: String)
    /// A recording could not be written: `reason` is the system's message or the conflict.
    case cannotRecord(path: String, reason: String)
    /// A recording not written because `path` holds a `GET`'s answer (or a hand-written file),
    /// which only a `GET` replaces (`docs/files.md#recording`); `method` is the one not recorded.
    case keptGETRecording(path: String, method: String)
    /// An answer to `target` not recorded because its file mock could not be served as the
    /// upstream sent it (`reason`): a status or field replay refuses (``CatbirdMatching/ResponseRules``),
    /// or a header field whose bytes are not UTF-8, which a sidecar could only hold altered.
    case cannotReplay(target: String, reason: String)

    /// The journal entry's `problem` for an answer record mode did not write
    /// (docs/files.md#recording): `not recorded: ` and why.
    public var notRecordedProblem: String {
        switch self {
        case let .cannotRecord(path, reason): return "not recorded: cannot write '\(path)': \(reason)"
        case let .keptGETRecording(path, _):
            return "not recorded: '\(path)' keeps its GET recording (a file recorded from a GET, or written by hand, is replaced only by a GET's answer)"
        case let .cannotReplay(_, reason): return "not recorded: \(reason)"
        default: return "not recorded: \(self)"
        }
    }

    public var description: String {
        switch self {
        case let .notADirectory(path): return "mocks directory '\(path)' does not exist or is not a directory"
        case let .badSidecar(path, reason): return "file mock sidecar '\(path)': \(reason)"
        case let .cannotRecord(path, reason): return "cannot record '\(path)': \(reason)"
        case let .keptGETRecording(path, method):
            return "\(method) answer not recorded: '\(path)' keeps its GET recording (a file recorded from a GET, or written by hand, is replaced only by a GET's answer)"
        case let .cannotReplay(target, reason): return "answer to \(target) not recorded: \(reason)"
        }
    }
}
