/// Which holder (tenant) each connection serves, for the connection watch's share of slots at
/// the limit (``ConnectionWatch/makeRoom(_:slots:clientsWaiting:)``; tester finding
/// tester67b-F1: one tenant's pool of keep-alive connections, never idle a second, held every
/// slot, and the health check and every other tenant waited in the backlog as long as it ran).
extension ServerCore {
    /// Who held `context` (``budgetHolderHeader``'s first value, "" when absent), as a key for
    /// the connection watch's share of connection slots (``ConnectionWatch/Connection/holderKey``):
    /// the value's 64-bit FNV-1a hash with its lowest bit set (never 0); 0 when no header names
    /// holders. Two holders whose keys collide share one share. Looked up once per request,
    /// when it ends (one pass over its field names).
    func holderKey(of context: RequestContext) -> UInt64 {
        guard let budgetHolderHeader else { return 0 }
        if let holder = context.budgetHolder { return Self.holderKey(of: holder.name) }
        guard var value = context.headers.first(budgetHolderHeader) else { return Self.holderKey(of: EmptyCollection()) }
        return value.withUTF8 { Self.holderKey(of: $0) }
    }

    /// The key of the holder named `bytes` (``holderKey(of:)``): their 64-bit FNV-1a hash with
    /// its lowest bit set.
    static func holderKey(of bytes: some Sequence<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash | 1
    }
}
