@testable import CatbirdHTTP
import XCTest

/// ``UnreadAnswerProgress`` tells when a client that takes none of an answer's bytes is reset,
/// fed the looks a tick makes (acknowledged bytes, bytes waiting, one second apart).
final class UnreadAnswerProgressTests: XCTestCase {
    private let start = ContinuousClock.now

    /// Feeds `acked` one look a second (bytes always waiting); the seconds of the looks that said "reset".
    private func resets(_ acked: [Int64], headTimeout: Duration = .seconds(2)) -> [Int] {
        var progress = UnreadAnswerProgress()
        return acked.indices.filter { second in
            progress.look(acked: acked[second], waiting: 400_000, startAcked: 0, at: start + .seconds(second), headTimeout: headTimeout)
        }
    }

    /// Regression (clean-clone CI failure of `UnreadMockAnswerTests.testASteadyReaderWithAGrownReceiveBufferIsNotReset`,
    /// looks as a loaded run logged them): after a 5.4 MB burst the client read a steady 150 KB a
    /// second; its window reopened in steps of 190-390 KB some 2 s apart, once in a step of 5 KB.
    /// That 5-KB step was taken for its burst, so the 2 s to the next step were past a 2-s
    /// allowance and the client was reset. The largest burst counts.
    func testASmallStepBetweenLargeOnesDoesNotShrinkTheAllowance() {
        let looks: [Int64] = [5_428_451, 5_428_451, 5_759_909, 5_949_243, 5_954_363, 5_954_363, 5_954_363, 6_344_189, 6_344_189, 6_344_189]
        XCTAssertEqual(resets(looks), [])
    }

    func testAClientThatStopsAfterASmallFillIsResetAfterTheHeadTimeout() {
        // 100 KB acknowledged (its first fill), then nothing: reset 2 s after the first look that saw it.
        XCTAssertEqual(resets([100_000, 100_000, 100_000, 100_000]).first, 2)
    }

    func testAClientThatStopsAfterALargeBurstIsResetAfterSixteenHeadTimeouts() {
        // 4 MB (over 16 × 128 KiB) acknowledged, then nothing: 16 × 2 s = 32 s.
        XCTAssertEqual(resets([Int64](repeating: 4_000_000, count: 40)).first, 32)
    }

    func testTheAllowanceGrowsWithTheBurstBetweenOneAndSixteenHeadTimeouts() {
        XCTAssertEqual(UnreadAnswerProgress.allowance(.seconds(30), burst: 0), .seconds(30))
        XCTAssertEqual(UnreadAnswerProgress.allowance(.seconds(30), burst: 3 * 128 << 10), .seconds(90))
        XCTAssertEqual(UnreadAnswerProgress.allowance(.seconds(30), burst: 100 << 20), .seconds(480))
    }

    func testNothingWaitingIsNotTimed() {
        var progress = UnreadAnswerProgress()
        for second in 0..<10 {
            XCTAssertFalse(progress.look(acked: 50_000, waiting: 0, startAcked: 0, at: start + .seconds(second), headTimeout: .seconds(1)))
        }
        XCTAssertNil(progress.since)
    }
}
