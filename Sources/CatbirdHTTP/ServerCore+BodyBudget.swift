import CatbirdSupport

/// The server-wide bound on request bodies held in memory (tester finding try8b F1: 40
/// uploads stalled one byte short of 50 MB held 2 GB, linear in the connections allowed).
///
/// A body takes its bytes from ``ServerCore/bodyBudget`` as they arrive, in doublings from
/// 4 KiB (``ByteBudget/grow(_:toHold:largest:)``, never past a declared `Content-Length`); past
/// the budget the rest is read and discarded and the request answered 503 once its body ended,
/// as past `maxBodySize`. A declared `Content-Length` that could not be held now is refused at
/// its head, unread (503, ``HTTPRequestProblem/bodiesOverBudget(limit:largeRoom:holderShare:whileArriving:)``), but takes nothing
/// there: a declaration is not a body (tester finding try10b F2: 7 uploads declaring 50 MB and
/// 900 declaring 64 KiB, 2 bytes sent each, held the whole budget and every tenant's `update`
/// got 503). A body larger than 64 KiB leaves the budget's reserve to small ones
/// (``ByteBudget/reserve(forHolding:largest:)``). The bytes are given back when the request
/// completes (its answer sent, or its connection closed), or at once when its body is
/// discarded. A request without a body takes nothing. A body is held by the holder its
/// ``ServerCore/budgetHolderHeader`` names (the tenant), whose takes past its share must leave
/// a share free for others (``ByteBudget/take(_:leaving:by:)``; tester finding tester39b-F8).
extension ServerCore {
    /// Whether a body of `bytes` (a declared `Content-Length`) could be held now; takes nothing.
    func hasRoomForBody(_ bytes: Int, _ context: RequestContext) -> Bool {
        bodyBudget.hasRoom(
            for: bytes, leaving: bodyBudget.reserve(forHolding: bytes, largest: maxBodySize), by: budgetHolder(of: context))
    }

    /// Grows `context`'s body's share to hold `total` bytes (up to its declared length, when it
    /// has one); false when the budget has no room.
    func growBody(to total: Int, _ context: RequestContext) -> Bool {
        let largest = context.declaredBodySize.map { min($0, maxBodySize) } ?? maxBodySize
        let holder = budgetHolder(of: context)
        guard let grown = bodyBudget.grow(context.bodyCharge, toHold: total, largest: max(largest, total), by: holder) else { return false }
        context.bodyCharge = grown
        return true
    }

    /// Gives back what `context`'s body took.
    func giveBackBody(_ context: RequestContext) {
        bodyBudget.giveBack(context.bodyCharge, by: context.budgetHolder)
        context.bodyCharge = 0
    }

    /// The refusal of `context`'s body when the budget has no room for it to hold `bytes`:
    /// ``HTTPRequestProblem/bodiesOverBudget(limit:largeRoom:holderShare:whileArriving:)``, naming the holder's share
    /// when only that kept them out.
    func budgetRefusal(holding bytes: Int, _ context: RequestContext, whileArriving: Bool) -> HTTPRequestProblem {
        let reserve = bodyBudget.reserve(forHolding: bytes, largest: maxBodySize)
        let byShare = bodyBudget.keptOutByShare(budgetHolder(of: context), held: context.bodyCharge, toHold: bytes, largest: maxBodySize)
        return .bodiesOverBudget(
            limit: bodyBudget.limit, largeRoom: bodyBudget.limit - reserve, holderShare: byShare ? bodyBudget.holderShare : nil,
            whileArriving: whileArriving)
    }

    /// The bytes of who holds `context`'s upload, for the connection watch's share of uploads
    /// under way (``ConnectionWatch/makeRoom(_:slots:)``); nil when no header names holders.
    func uploadHolder(of context: RequestContext) -> [UInt8]? {
        budgetHolder(of: context)?.name
    }

    /// Who holds `context`'s body (``budgetHolderHeader``'s first value, "" when absent),
    /// found at its first use and kept; nil when no header names holders.
    private func budgetHolder(of context: RequestContext) -> ByteBudget.Holder? {
        if let holder = context.budgetHolder { return holder }
        guard let budgetHolderHeader else { return nil }
        let holder = ByteBudget.Holder(context.headers.first(budgetHolderHeader) ?? "")
        context.budgetHolder = holder
        return holder
    }
}
