import CatbirdSupport

extension URIAuthority {
    /// Where the authority of an `http` or `https` URI lies (`http://user:pw@api.test:81/p?q#f`,
    /// RFC 3986 section 3.2): from after `//` to the first `/`, `?` or `#`, or the end; and its
    /// host part after the last `@` of the user information (`api.test:81`). The one finder
    /// for every reader of an absolute-form target: the refusal of an invalid authority
    /// (``HTTPRequest/httpURIAuthorityProblem(_:method:)``), the control routes' host check and
    /// proxy mode's upstream URL without the user information.
    public struct Span: Sendable, Equatable {
        /// The whole authority, user information included (possibly empty: `http:///x`).
        public let whole: Range<String.Index>
        /// `host[:port]`: the authority after its user information.
        public let host: Range<String.Index>

        /// Whether the authority has user information (an `@`).
        public var hasUserInformation: Bool { host.lowerBound != whole.lowerBound }

        /// The authority of `uri` when it is an `http` or `https` URI (the scheme in any case)
        /// with `//` after the scheme; nil for any other scheme or form, or `http:` without `//`.
        public init?(ofHTTP uri: Substring) {
            guard let afterScheme = URIAuthority.afterHTTPScheme(uri) else { return nil }
            self.init(uri, afterScheme: afterScheme)
        }

        /// The authority of `uri` whose scheme and `:` end at `afterScheme`; nil without `//` there.
        init?(_ uri: Substring, afterScheme: String.Index) {
            let bytes = uri.utf8
            guard bytes[afterScheme...].starts(with: "//".utf8) else { return nil }
            let start = bytes.index(afterScheme, offsetBy: 2)
            var end = start
            var host = start
            while end < bytes.endIndex {
                let byte = bytes[end]
                if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
                end = bytes.index(after: end)
                if byte == UInt8(ascii: "@") { host = end }
            }
            whole = start..<end
            self.host = host..<end
        }
    }

    /// Where `uri`'s scheme ends (after its `:`) when it is `http` or `https`, in any case
    /// (RFC 3986 section 3.1: schemes compare case-insensitively), compared byte by byte; nil
    /// for any other scheme, or none.
    static func afterHTTPScheme(_ uri: Substring) -> String.Index? {
        let bytes = uri.utf8
        var index = bytes.startIndex
        for expected in "http".utf8 {
            guard index < bytes.endIndex, ASCIICase.lower(bytes[index]) == expected else { return nil }
            index = bytes.index(after: index)
        }
        if index < bytes.endIndex, ASCIICase.lower(bytes[index]) == UInt8(ascii: "s") { index = bytes.index(after: index) }
        guard index < bytes.endIndex, bytes[index] == UInt8(ascii: ":") else { return nil }
        return bytes.index(after: index)
    }
}
