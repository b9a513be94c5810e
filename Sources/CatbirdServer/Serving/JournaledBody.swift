/// A response body the answer does not hold as bytes of its own, as the journal is to keep it:
/// a file sent from its descriptor (the bytes read for the journal) or a byte range sent from a
/// mock's stored body (the part, shared with the mock, not copied). The journal writer keeps
/// at most its body limit of `bytes` (`--journal-body-limit`, ``CatbirdDomain/JournalEntry/truncateBodies(to:)``:
/// the one place a journaled body is cut) and records `size`.
struct JournaledBody {
    /// The body's bytes, or its first ones.
    var bytes: ArraySlice<UInt8>
    /// The body's full size in bytes (at least `bytes.count`).
    var size: Int
}
