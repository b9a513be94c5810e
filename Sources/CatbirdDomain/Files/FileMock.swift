/// A file that answers a request: where its body is and what to send with it.
public struct FileMock: Sendable {
    /// The body file's absolute path, symlinks resolved (inside the mocks directory).
    public let path: String
    /// The body's size in bytes.
    public let size: Int
    /// The status: the sidecar's, else 200.
    public let status: Int
    /// The header fields: the sidecar's, else a `Content-Type` from the file's extension when the
    /// media-type table knows it. Never `Content-Length` (the server frames the body).
    public let headers: [(name: String, value: String)]
    /// The entity tag sent as `ETag` and compared with `If-None-Match`: the sidecar's `ETag`, else
    /// one made of the body's size and modification time.
    public let entityTag: String

    /// The entity tag of a body of `size` bytes last modified `modified` nanoseconds after 1970,
    /// sent with `headers`: their `ETag`, else one made of the size and the time in hex.
    public static func entityTag(headers: [(name: String, value: String)], size: Int, modified: Int) -> String {
        headers.first { $0.name.lowercased() == "etag" }?.value ?? "\"\(String(size, radix: 16))-\(String(modified, radix: 16))\""
    }

    /// The latest modification time ``entityTag(headers:size:modified:)`` can be given, which
    /// makes the longest tag for a size (16 hex digits, as every time after 2005 has): record
    /// mode measures a replay's head with it before the file exists (tester finding tester26a-F6).
    public static let latestModified = Int.max

    public init(path: String, size: Int, status: Int, headers: [(name: String, value: String)], entityTag: String) {
        self.path = path
        self.size = size
        self.status = status
        self.headers = headers
        self.entityTag = entityTag
    }

    /// Whether an `If-None-Match` value names this file's tag (weak comparison, RFC 9110
    /// §13.1.2): `*`, or one of the comma-separated tags with or without `W/`.
    public func matches(ifNoneMatch value: String) -> Bool {
        let own = Self.opaque(entityTag)
        return value.split(separator: ",").contains { candidate in
            let tag = candidate.trimmingCharacters(in: .whitespaces)
            return tag == "*" || Self.opaque(tag) == own
        }
    }

    private static func opaque<S: StringProtocol>(_ tag: S) -> Substring {
        let text = Substring(tag)
        return text.hasPrefix("W/") ? text.dropFirst(2) : text
    }
}

import Foundation
