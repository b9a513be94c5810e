import CatbirdMatching
import CatbirdSupport

/// Counts a worker's pattern mocks tried for one request, and says when they have used the
/// slice's CPU time (``RegexpSlice/length``): each search of a wildcard or plain regexp reads
/// the clock only while a long one runs, so many cheap ones added up unchecked (tester
/// finding tester30b-F5: 1,000 plain regexps tried for every 200-byte URL held a worker 38
/// ms per request). The thread's CPU time, not the wall clock, so that a request that waited
/// for a core is not sent to the lane for it; read at every ``candidatesPerRead``-th
/// candidate only, from the first such read on (a request trying fewer reads nothing).
struct CandidateMeter {
    /// Candidates between two reads of the thread's CPU time: 32.
    static let candidatesPerRead = 32
    private var tried = 0
    private var firstRead: Duration?

    /// Counts one more candidate; whether the candidates since the first read have used a slice.
    mutating func spentSlice() -> Bool {
        tried += 1
        guard tried % Self.candidatesPerRead == 0 else { return false }
        let now = ThreadCPUTime.now()
        guard let firstRead else {
            self.firstRead = now
            return false
        }
        return now - firstRead >= RegexpSlice.length
    }
}
