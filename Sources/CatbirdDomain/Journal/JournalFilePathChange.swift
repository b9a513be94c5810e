/// What an amendment (``JournalWriter/amend(_:problem:filePath:)``) does to its entry's
/// `filePath`: a recording placed only after its entry was queued (`--durability strict` with
/// `--record`, docs/files.md#recording) may not land where the entry says.
public enum JournalFilePathChange: Sendable, Equatable {
    /// The entry's `filePath` stays as written.
    case unchanged
    /// Set to null: the file it named was not written after all (the rename failed).
    case cleared
    /// Set to this absolute path: the file was written elsewhere than planned (at
    /// `<planned>/index`, the planned name having become a directory meanwhile).
    case replaced(String)
}
