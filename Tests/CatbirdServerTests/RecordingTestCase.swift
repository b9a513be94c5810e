import CatbirdServer
import CatbirdTestSupport
import Foundation

/// Base class for record mode suites: a real upstream (``UpstreamTestCase``), a mocks directory
/// of the test's own (removed afterwards), and servers recording into it or replaying from it.
class RecordingTestCase: UpstreamTestCase {
    /// This test's mocks directory (created by the recording server).
    private(set) var mocksDirectory: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        mocksDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-recording-\(UUID().uuidString)")
    }

    override func tearDown() {
        if let mocksDirectory { try? FileManager.default.removeItem(at: mocksDirectory) }
        super.tearDown()
    }

    /// A server on ``mocksDirectory``: recording what it forwards to ``upstream`` (redirect
    /// mode), or (`recording` false) replaying the files, with no upstream.
    func server(recording: Bool) throws -> TestServer {
        try TestServer { settings in
            if recording {
                settings.redirectURL = self.upstream.baseURL
                settings.recordMode = true
            }
            settings.mocksDirectory = self.mocksDirectory.path
        }
    }
}
