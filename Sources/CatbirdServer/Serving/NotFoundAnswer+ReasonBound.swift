import CatbirdHTTP
import CatbirdSupport
import Foundation

extension NotFoundAnswer {
    /// Bounds the reason written into `out` from `start` (the text of its JSON string, escaped)
    /// as every error's is (``CatbirdHTTP/HTTPResponse/boundedReason(_:)``: 8,000 UTF-8 bytes,
    /// then `…`; docs/protocol.md#errors): a reason whose escaped bytes fit is left as written,
    /// which is every usual 404's, at the cost of one comparison. A longer one (near misses of
    /// 20 long fields, a long mocks-directory hint; tester finding T19B-F15 saw 20,175 bytes) is
    /// read back, cut, and written again in its place.
    static func boundReason(from start: Int, in out: inout ByteWriter) {
        // An escape is longer than the byte it stands for: the escaped bytes bound the text's.
        guard out.count - start > HTTPResponse.maxErrorReasonBytes else { return }
        var literal: [UInt8] = [UInt8(ascii: "\"")]
        out.withBytes { literal.append(contentsOf: $0[start...]) }
        literal.append(UInt8(ascii: "\""))
        guard let reason = try? JSONDecoder().decode(String.self, from: Data(literal)) else { return }
        let bounded = HTTPResponse.boundedReason(reason)
        guard bounded.utf8.count < reason.utf8.count else { return }
        out.truncate(to: start)
        out.appendJSONStringContent(bounded)
    }
}
