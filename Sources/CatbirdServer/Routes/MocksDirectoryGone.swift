import Foundation
import Synchronization

/// When health first saw the `--mocks-dir` directory gone, until it saw it back: the server
/// looks at the directory only when asked, so that is the `since` health gives (it gave the
/// time of each check, about a second later with every call: tester finding tester32a-F4).
final class MocksDirectoryGone: Sendable {
    private let since = Mutex<Date?>(nil)

    /// The time the directory was first seen gone, now when `gone` and not seen gone before;
    /// nil (and forgotten) when it is not gone.
    func since(gone: Bool) -> Date? {
        since.withLock { since in
            guard gone else {
                since = nil
                return nil
            }
            if since == nil { since = Date() }
            return since
        }
    }
}
