import Foundation

/// URLs as they may be shown (log lines, error reasons, the journal): a password in their user
/// information replaced by `***` (`http://ci:***@api.test/`), as the admin token is never shown.
public enum URLPassword {
    /// `url` with its password shown as `***`; unchanged when it has none or is not a URL.
    public static func hidden(in url: String) -> String {
        guard url.contains("@"), var components = URLComponents(string: url), components.password != nil else { return url }
        components.password = "***"
        return components.string ?? url
    }
}
