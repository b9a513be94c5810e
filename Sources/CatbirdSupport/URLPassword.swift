/// URLs as they may be shown (log lines, error reasons, the journal): a password in their user
/// information replaced by `***` (`http://ci:***@api.test/`), as the admin token is never shown.
public enum URLPassword {
    /// `url` with its password shown as `***`; unchanged when it has none or is not a URL. Read
    /// from the text (RFC 3986 §3.2: the authority after `://`, up to the first `/`, `?` or `#`;
    /// the user information before its last `@`; the password after the first `:` of that), so
    /// that a URL refused for its spelling (a trailing space from a secret file, port 0) is
    /// shown hidden too (tester finding tester50c-F10: start-up refusals printed it whole).
    public static func hidden(in url: String) -> String {
        guard let schemeEnd = url.range(of: "://") else { return url }
        let authorityEnd = url[schemeEnd.upperBound...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? url.endIndex
        let authority = url[schemeEnd.upperBound..<authorityEnd]
        guard let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") else { return url }
        return String(url[...colon]) + "***" + String(url[at...])
    }
}
