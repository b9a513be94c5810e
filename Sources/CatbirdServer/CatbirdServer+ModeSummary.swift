import CatbirdSupport
import Foundation

extension CatbirdServer.Settings {
    /// The modes in effect, for the start-up log line after `listening on` (README.md#configuration),
    /// so that a job that meant to record or forward can see it does:
    /// `modes: redirect http://api.example.com/base/, proxy off, record on, mocks-dir
    /// /home/ci/mocks, files-with-query off, cors off, durability relaxed, admin token none`.
    /// The mocks directory is shown absolute (a relative one against the working directory);
    /// CORS as `off`, `any origin` or the listed origins; the admin token only as `set` or
    /// `none`, never its value, nor the redirect URL's password.
    public var modeSummary: String {
        let cors = corsOrigins.isEmpty ? (self.cors ? "any origin" : "off") : corsOrigins.joined(separator: " ")
        return "modes: " + [
            "redirect \(redirectURL.map(URLPassword.hidden(in:)) ?? "off")",
            "proxy \(proxyEnabled ? "on" : "off")",
            "record \(recordMode ? "on" : "off")",
            "mocks-dir \(mocksDirectory.map { URL(fileURLWithPath: $0).standardizedFileURL.path } ?? "none")",
            "files-with-query \(filesIncludeQuery ? "on" : "off")",
            "cors \(cors)",
            "durability \(durability.rawValue)",
            "admin token \(adminToken == nil ? "none" : "set")",
        ].joined(separator: ", ")
    }
}
