import CatbirdDomain
import CatbirdSupport
import Foundation
import Synchronization

/// Compiles the stored mocks' regular expressions on a thread of its own once the server
/// listens (``MockStore/compileStoredExpressions(log:stop:)``): start-up loads them without
/// compiling, so a restart listens at once whatever the tenants stored (try9b F14).
final class StoredExpressionsCompiler: Sendable {
    private let mocks: MockStore
    private let log: Logger
    private let stopping = Atomic<Bool>(false)

    init(mocks: MockStore, log: Logger) {
        self.mocks = mocks
        self.log = log
    }

    /// Starts the pass (once per server start).
    func start() {
        let thread = Thread.named("catbird-compile") { [self] in
            let (bytes, took) = mocks.compileStoredExpressions(log: log, stop: stopping)
            guard bytes > 0 else { return }
            log.info("compiled \(bytes) bytes of the stored mocks' regular expressions in \(Int(took / .milliseconds(1))) ms")
        }
        thread.start()
    }

    /// Stops the pass before its next mock; does not wait (a compile under way is not
    /// interrupted, and touches memory only).
    func stop() {
        stopping.store(true, ordering: .relaxed)
    }
}
