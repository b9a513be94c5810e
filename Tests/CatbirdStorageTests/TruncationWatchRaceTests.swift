import CatbirdStorage
import CatbirdTestSupport
import Foundation
import XCTest

/// The database file's size watch (``DatabaseFileLock/truncated()``) under concurrent checks
/// while the file grows.
final class TruncationWatchRaceTests: StorageTestCase {
    /// Regression (tester finding tester32b-F1): a healthy server declared its file "truncated
    /// under the running server" ("2945024 bytes, shorter than the 3026944 bytes it had") during
    /// tenant churn and stayed degraded for good, though the file only ever grew: one thread
    /// read the size, another recorded the larger size a checkpoint had just grown the file to,
    /// and the first then compared its older read with it. Here four threads check while a fifth
    /// grows the file a page at a time (`ftruncate` up, as a checkpoint's writes do): no check
    /// may see a shrink; a real one is still seen.
    func testChecksWhileTheFileGrowsNeverSeeAShrinkAndARealOneIsSeen() throws {
        let path = databasePath("race.sqlite")
        let lock = try DatabaseFileLock(databasePath: path)
        defer { lock.release() }
        let writer = open(path, O_WRONLY | O_CLOEXEC)
        XCTAssertGreaterThanOrEqual(writer, 0)
        defer { close(writer) }
        XCTAssertEqual(ftruncate(writer, 4096), 0)
        lock.watchSize()

        let pages = 20_000
        let seen = Locked<[String]>([])
        let done = Locked(false)
        let finished = DispatchSemaphore(value: 0)
        // Threads of their own: four spinning on Dispatch's global queue could take all its
        // threads and leave the grower none.
        for _ in 0..<4 {
            Thread {
                while !done.value {
                    if let error = lock.truncated() {
                        seen.append("\(error)")
                        break
                    }
                }
                finished.signal()
            }.start()
        }
        for page in 2...pages { _ = ftruncate(writer, off_t(page * 4096)) }
        done.set(true)
        for _ in 0..<4 { finished.wait() }
        XCTAssertEqual(seen.value, [], "a file that only grew was seen shorter")
        XCTAssertNil(lock.truncated())

        XCTAssertEqual(ftruncate(writer, 4096), 0)
        let error = try XCTUnwrap(lock.truncated(), "a real truncation")
        XCTAssertTrue("\(error)".contains("is 4096 bytes, shorter than the \(pages * 4096) bytes it had"), "\(error)")
    }
}
