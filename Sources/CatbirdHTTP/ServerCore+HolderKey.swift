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
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func add(_ byte: UInt8) { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        if let holder = context.budgetHolder {
            for byte in holder.name { add(byte) }
        } else if var value = context.headers.first(budgetHolderHeader) {
            value.withUTF8 { for byte in $0 { add(byte) } }
        }
        return hash | 1
    }
}
