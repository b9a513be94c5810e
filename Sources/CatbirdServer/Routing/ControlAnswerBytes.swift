import CatbirdDomain
import CatbirdHTTP
import CatbirdSupport

/// A control answer's bytes counted in the server's buffered-body budget (`--max-buffered-bodies`)
/// until its client has read it, as a forwarded answer's are (docs/operations.md#connections-and-memory).
///
/// A control answer is made whole for its request (an SQL result of up to 16 MiB, a journal page,
/// a mock listing) and held until it is sent; a client that does not read kept it until the
/// idle timeout, uncounted (tester finding tester22b-F3: 30 unread 16 MiB SQL answers, 0.4 s
/// apart, grew the server by 460 MB, and one shard could hold gigabytes). Answers of up to
/// ``CatbirdHTTP/HTTPResponse/Body/copiedBytesLimit`` (64 KiB) are not counted: they are what
/// connections hold anyway. A larger one takes its size from the budget, leaving the budget's
/// reserve for small request bodies, and gives it back when sent or its connection closes; one
/// larger than the budget can give goes when nothing else holds any of it.
enum ControlAnswerBytes {
    /// `response`, its body counted in `budget` as held by `tenant` when it is bytes in memory
    /// over 64 KiB; a 503 (``APIError/answersOverBudget(bytes:in:)``) in its place when the
    /// budget has no room.
    static func counted(_ response: HTTPResponse, in budget: ByteBudget, for tenant: TenantID) -> HTTPResponse {
        guard case let .bytes(bytes) = response.content, bytes.count > HTTPResponse.Body.copiedBytesLimit,
              response.budgetShare == nil
        else { return response }
        let share = ByteBudget.Share(of: budget, for: ByteBudget.Holder(tenant.rawValue))
        // One answer larger than what the budget can give (a small --max-buffered-bodies) goes
        // when it holds the budget alone: else it could never be answered.
        guard share.grow(toHold: bytes.count, largest: bytes.count) || share.takeAlone(bytes.count) else {
            return APIError.answersOverBudget(bytes: bytes.count, in: share).response
        }
        var counted = response
        counted.budgetShare = share
        return counted
    }
}
