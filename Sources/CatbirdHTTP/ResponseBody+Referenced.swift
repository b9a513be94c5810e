import CMicroHTTPD

extension ResponseBody {
    /// A libmicrohttpd response whose body is `bytes` in place, not a copy of them
    /// (`MHD_create_response_from_buffer_with_free_callback_cls`, libmicrohttpd 0.9.73.2 and
    /// later): the response keeps the array alive (``ReferencedBytes``) until libmicrohttpd
    /// destroys it, when the last connection sending it is done. For a response made once and
    /// queued on many connections (``PreparedResponse``) whose body is larger than
    /// ``HTTPResponse/Body/copiedBytesLimit``: a mock's answer is made again each second
    /// (its `Date`), and each copy of a large body stayed alive as long as any client that did
    /// not read it kept its connection (tester finding tester22b-F1: one such client a second to
    /// a 30 MiB mock grew the server by 30 MiB a second, for the 120 s idle timeout). The array
    /// is the mock's own body (copy-on-write storage, shared), so a client that does not read
    /// holds no bytes the mock does not already hold. Nil when memory ran out.
    /// https://www.gnu.org/software/libmicrohttpd/manual/html_node/microhttpd_002dresponse-create.html
    static func referencing(_ bytes: [UInt8]) -> OpaquePointer? {
        let referenced = ReferencedBytes(bytes)
        let context = Unmanaged.passRetained(referenced).toOpaque()
        guard let response = MHD_create_response_from_buffer_with_free_callback_cls(
            referenced.count, referenced.address, releaseReferenced, context)
        else {
            Unmanaged<ReferencedBytes>.fromOpaque(context).release()
            return nil
        }
        return response
    }
}

/// libmicrohttpd's free callback for ``ResponseBody/referencing(_:)``: drops the response's
/// reference to its bytes (on whichever thread destroys the response).
private let releaseReferenced: MHD_ContentReaderFreeCallback = { context in
    guard let context else { return }
    Unmanaged<ReferencedBytes>.fromOpaque(context).release()
}

/// A non-empty byte array kept alive, and at one address, while a libmicrohttpd response sends
/// it (``ResponseBody/referencing(_:)``).
///
/// The address stays valid for the object's lifetime: a native Swift array (there is no
/// bridging on Linux) holds its elements inline in one heap storage object, which moves or is
/// replaced only when the array is mutated (growth, or copy-on-write of shared storage); `bytes`
/// is a `let` of this final class, never mutated, and retains that storage until the object
/// goes. `withUnsafeBytes` of a non-empty native array lends that storage's own elements, not a
/// temporary copy (a temporary is made only for an empty array, which `init` refuses).
///
/// `@unchecked Sendable`: every stored property is a `let`, set in `init` before the object is
/// shared; libmicrohttpd only reads the bytes, from any thread.
final class ReferencedBytes: @unchecked Sendable {
    private let bytes: [UInt8]
    let address: UnsafeMutableRawPointer
    var count: Int { bytes.count }

    init(_ bytes: [UInt8]) {
        precondition(!bytes.isEmpty, "an empty body is copied, not referenced")
        self.bytes = bytes
        // See the type's documentation for why the address outlives the closure.
        address = bytes.withUnsafeBytes { UnsafeMutableRawPointer(mutating: $0.baseAddress!) }
    }
}
