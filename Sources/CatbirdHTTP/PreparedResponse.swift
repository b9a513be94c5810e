import CMicroHTTPD

/// A response in libmicrohttpd's form (`MHD_Response`: the header fields, and a copy of the body,
/// or for a body over ``HTTPResponse/Body/copiedBytesLimit`` the body's own bytes,
/// ``ResponseBody/referencing(_:)``), made once and queued on any number of connections
/// (``HTTPResponse/prepared()``).
///
/// libmicrohttpd reference-counts response objects and documents this use: one response object
/// per kind of answer, queued every time that answer is given, destroyed when no longer needed
/// (https://www.gnu.org/software/libmicrohttpd/manual/html_node/microhttpd_002dresponses.html).
/// Destroying it here only drops this reference; connections still sending it keep theirs.
///
/// `@unchecked Sendable`: `handle` is set once, in `init`, before the object can be shared, and
/// is never changed; afterwards libmicrohttpd only reads the response's body and fields, and
/// changes its reference count under the response's own mutex (`MHD_queue_response`,
/// `MHD_destroy_response`), which is safe from any thread.
final class PreparedResponse: @unchecked Sendable {
    let handle: OpaquePointer

    /// The MHD form of `response`'s status line fields and body; nil when its body is not bytes
    /// in memory (a file or a stream is read per request) or memory ran out.
    init?(_ response: HTTPResponse) {
        guard case let .bytes(bytes) = response.content else { return nil }
        // A large body is referenced, not copied: the copy of each second's form of a mock's
        // answer stayed alive with every client that did not read it (tester22b-F1).
        let made = bytes.count > HTTPResponse.Body.copiedBytesLimit
            ? ResponseBody.referencing(bytes) : ResponseBody.make(response.content, socket: -1)
        guard let handle = made else { return nil }
        ResponseBody.addFields(of: response, to: handle)
        self.handle = handle
    }

    deinit {
        MHD_destroy_response(handle)
    }
}
