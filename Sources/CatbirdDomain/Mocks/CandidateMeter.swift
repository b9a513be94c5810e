import CatbirdMatching
import CatbirdSupport

/// Meters the mocks a worker tries for one request (their url, header and body patterns), and
/// says when they have used the slice's CPU time (``RegexpSlice/length``). Each wildcard or
/// plain regexp search reads the clock only while a long one runs, and equal values none, so
/// many cheap comparisons added up unchecked: 1,000 plain regexps tried for every 200-byte URL
/// held a worker 38 ms per request (tester finding tester30b-F5), 1,000 mocks of 300 header
/// patterns 150 ms, 900 `json` bodies of 3,000 keys 555 ms (tester30c-F5, F6). Each mock counts
/// its ``CompiledRequestPattern/matchingWeight``; the thread's CPU time (not the wall clock, so
/// that a request that waited for a core is not sent to the lane for it) is read each time
/// ``unitsPerRead`` more have been counted, from the first such read on (a request trying a few
/// small mocks reads nothing).
struct CandidateMeter {
    /// Weight counted between two reads of the thread's CPU time: 32 (32 short patterns, or
    /// one mock with 31 header patterns).
    static let unitsPerRead = 32
    private var units = 0
    private var firstRead: Duration?

    /// Counts a mock of `weight`; whether the mocks counted since the first read have used a slice.
    mutating func spentSlice(adding weight: Int) -> Bool {
        units += weight
        guard units >= Self.unitsPerRead else { return false }
        units = 0
        let now = ThreadCPUTime.now()
        guard let firstRead else {
            self.firstRead = now
            return false
        }
        return now - firstRead >= RegexpSlice.length
    }
}
