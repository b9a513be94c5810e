/// Where the authority of an absolute URL lies (`scheme://authority/path?query#fragment`,
/// RFC 3986 §3.2): from after `://` to the first `/`, `?` or `#`, or the end; and its host
/// part, after the last `@` of the user information (`user:pw@api.test:81` → `api.test:81`).
/// One scan for the two places that read it: the control routes' host check of an
/// absolute-form target (``ControlHosts``) and proxy mode's upstream URL without the user
/// information (``Forwarding``).
struct AbsoluteURLAuthority {
    /// The whole authority, user information included.
    let whole: Range<String.Index>
    /// `host[:port]`: the authority after its user information.
    let host: Range<String.Index>

    /// The authority of `url`; nil when `url` holds no `://` (the scheme is not checked).
    init?(of url: Substring) {
        guard let start = url.range(of: "://")?.upperBound else { return nil }
        let end = url[start...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? url.endIndex
        whole = start..<end
        host = (url[whole].lastIndex(of: "@").map { url.index(after: $0) } ?? start)..<end
    }

    /// Whether the authority has user information (an `@`).
    var hasUserInformation: Bool { host.lowerBound != whole.lowerBound }
}
