import CatbirdSupport

/// The server-wide bound on request bodies held in memory (tester finding try8b F1: 40
/// uploads stalled one byte short of 50 MB held 2 GB, linear in the connections allowed).
///
/// A body takes its bytes from ``ServerCore/bodyBudget`` before it is read: a declared
/// `Content-Length` whole when the head arrives (refused then, unread, when it does not fit:
/// 503, ``HTTPRequestProblem/bodiesOverBudget(limit:)``); a chunked body as it grows, in
/// doublings from 64 KiB (``ByteBudget/grow(_:toHold:largest:)``; past the budget the rest is
/// read and discarded and the request answered 503 once its body ended, as past
/// `maxBodySize`). A body larger than 64 KiB leaves the budget's reserve to small ones
/// (``ByteBudget/reserve(forHolding:largest:)``). The bytes are given back when the request
/// completes (its answer sent, or its connection closed), or at once when its body is
/// discarded. A request without a body takes nothing.
extension ServerCore {
    /// Takes `bytes` (a declared `Content-Length`) for `context`'s body; false when the budget
    /// has no room.
    func takeBody(_ bytes: Int, _ context: RequestContext) -> Bool {
        guard bodyBudget.take(bytes, leaving: bodyBudget.reserve(forHolding: bytes, largest: maxBodySize)) else { return false }
        context.bodyCharge = bytes
        return true
    }

    /// Grows a chunked body's share to hold `total` bytes; false when the budget has no room.
    func growBody(to total: Int, _ context: RequestContext) -> Bool {
        guard let grown = bodyBudget.grow(context.bodyCharge, toHold: total, largest: maxBodySize) else { return false }
        context.bodyCharge = grown
        return true
    }

    /// Gives back what `context`'s body took.
    func giveBackBody(_ context: RequestContext) {
        bodyBudget.giveBack(context.bodyCharge)
        context.bodyCharge = 0
    }
}
