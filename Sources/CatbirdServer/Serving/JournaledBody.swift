/// A response body the answer does not hold as bytes of its own, as the journal is to keep it:
/// a file sent from its descriptor or a byte range sent from a mock's stored body; its first
/// bytes (at most the journal's body limit, `--journal-body-limit`) and its full size.
struct JournaledBody {
    /// The body's first bytes.
    var bytes: [UInt8]
    /// The body's full size in bytes (at least `bytes.count`).
    var size: Int
}
