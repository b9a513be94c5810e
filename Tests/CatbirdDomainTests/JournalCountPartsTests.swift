@testable import CatbirdDomain
import CatbirdSupport
import Synchronization
import XCTest

/// A shared count's parts (``JournalCountParts``): they cover the id range exactly once,
/// whoever takes them, and a part's failure is the count's.
final class JournalCountPartsTests: XCTestCase {
    /// Every id of the range lies in exactly one part, the parts in order and touching, for
    /// ranges shorter than, equal to and far longer than the part count, and uneven ones.
    func testThePartsCoverTheRangeExactlyOnce() {
        for (after, through) in [(0, 1), (4, 20), (0, 16), (99, 100_099), (1_234_566, 2_734_566), (7, 7), (10, 1_000_003)] {
            let parts = JournalCountParts(after: Int64(after), through: Int64(through), partCount: 16, statistics: JournalCountStatistics()) { _ in 0 }.parts
            XCTAssertEqual(parts.first?.after, Int64(after), "\(after)…\(through)")
            XCTAssertEqual(parts.last?.through, Int64(through), "\(after)…\(through)")
            XCTAssertLessThanOrEqual(parts.count, 16)
            for (earlier, later) in zip(parts, parts.dropFirst()) {
                XCTAssertEqual(earlier.through, later.after, "\(after)…\(through): the next part starts after this one's end")
                XCTAssertLessThan(later.after, later.through, "\(after)…\(through): no empty part in a range this long")
            }
            if through - after >= 16 { XCTAssertEqual(parts.count, 16, "\(after)…\(through)") }
        }
    }

    /// A count shared with a spare thread sums what each part counted (here: the ids of the
    /// part that are multiples of 3, counted one by one), the same as one pass over the range.
    func testASharedCountSumsItsPartsWhoeverTookThem() throws {
        let taken = Mutex<[JournalCountParts.Part]>([])
        let parts = JournalCountParts(after: 999, through: 200_000, partCount: 16, statistics: JournalCountStatistics()) { part in
            taken.withLock { $0.append(part) }
            return Int64((part.after + 1...part.through).count { $0 % 3 == 0 })
        }
        let spare = SpareThreads(limit: 1, name: "count-test", niceness: 0)
        XCTAssertTrue(spare.offer { parts.help() })
        XCTAssertEqual(try parts.total(helped: true), Int64((1000...200_000).count { $0 % 3 == 0 }))
        XCTAssertEqual(taken.withLock { $0.sorted { $0.after < $1.after } }, parts.parts, "each part counted once")
    }

    /// A part that throws fails the count with its error, and no part starts after it.
    func testAFailingPartFailsTheCount() {
        struct Stopped: Error {}
        let started = Mutex(0)
        let parts = JournalCountParts(after: 0, through: 1600, partCount: 16, statistics: JournalCountStatistics()) { part in
            started.withLock { $0 += 1 }
            if part.after >= 500 { throw Stopped() }
            return 1
        }
        XCTAssertThrowsError(try parts.total(helped: false)) { XCTAssertTrue($0 is Stopped, "\($0)") }
        XCTAssertEqual(started.withLock { $0 }, 6, "parts 0…5 ran (the sixth threw), the ten after it never started")
    }

    /// The spare threads refuse work past their limit at once, and take it again when one ended.
    func testSpareThreadsRefusePastTheirLimit() {
        let spare = SpareThreads(limit: 1, name: "count-test", niceness: 0)
        let release = DispatchSemaphore(value: 0)
        let ended = DispatchSemaphore(value: 0)
        XCTAssertTrue(spare.offer { release.wait(); ended.signal() })
        XCTAssertFalse(spare.offer {}, "the one thread is busy")
        release.signal()
        ended.wait()
        var accepted = false
        for _ in 0..<1000 where !accepted {
            accepted = spare.offer {}
            if !accepted { Thread.sleep(forTimeInterval: 0.001) }
        }
        XCTAssertTrue(accepted, "a thread is free again once the job ended")
    }
}
