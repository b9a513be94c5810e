import CatbirdDomain
import CatbirdHTTP
import CatbirdSupport
import Synchronization

/// The last 404 answers each thread computed (``NotFoundAnswer``: near misses, reason, body
/// bytes, where the near misses are in them), reused for the same request against unchanged
/// mock tables instead of comparing it with every mock again (docs/matching.md#repeated-misses).
///
/// The answer is the same bytes as a fresh one because the key holds everything it was
/// computed from:
/// - ``MockStore/generation``, read before the computation: any change of any tenant's mock
///   table since (a mock added, replaced or removed, a limit used up, a hit given back, a
///   tenant cleared or dropped) makes every entry stale; no two stores of the process (two
///   servers in one test process, whose lane threads may be shared) ever share a number;
/// - the tenant, the method, the request-target and the body the patterns were matched against
///   (decoded for a gzip or deflate `Content-Encoding`: the same bytes sent without it differ),
///   byte for byte;
/// - each header field the computation asked for (the names the compared patterns hold, in
///   this tenant, the default tenant and, for a request of the default tenant, the others
///   searched for `matchingTenants`), with the request's first value for it or none: a request
///   that agrees on all of them takes the same path through the same tables and asks nothing
///   else;
/// - whether other tenants may be named (no admin token).
///
/// An answer that depends on timing is never kept: one whose search ended at its time limit,
/// or in which a regular expression was stopped (or, on a worker, not started;
/// ``NearMissReport/complete``), or that names mocks skipped for their evaluation budget. Nor
/// is any answer kept while a mocks directory is set: its reason names the files tried
/// (``FileServing/missHint(for:)``), which the key does not cover.
///
/// A kept answer reused in the usual case (no `--cors`, a request to which libmicrohttpd adds
/// only the framing fields: ``MockServing/notFound(_:tenant:outOfTime:regexpSlice:generation:tables:)``)
/// is also kept as it goes out in the current second: stamped with the second's head
/// (``NotFoundHead``) and in libmicrohttpd's form (``HTTPResponse/prepared()``), made at its
/// first reuse in the second (``sent(_:date:making:)``). The next reuses in that second
/// queue that one response instead of each copying the body and header fields into a new one
/// (callgrind: about 4,400 instructions of a repeated miss's worker). It belongs to its entry,
/// so it goes stale with it: a change of any table drops the entry and its sent form.
///
/// Bounds: ``entriesPerThread`` entries per thread (each worker's and each matching lane's
/// thread), each at most ``entryBytesLimit`` bytes of key and answer body, plus the sent
/// form's copy of that body; a larger answer is not kept. The oldest entry goes first. No
/// lock: each thread reads only its own entries.
enum NotFoundMemo {
    /// Entries each thread keeps at most: 8 (eight tenants' repeated misses on one worker).
    static let entriesPerThread = 8
    /// Bytes of one entry's key (method, target, body, tenant id, header names and values) and
    /// answer body at most: 16 KiB. So a thread keeps at most 128 KiB of them.
    static let entryBytesLimit = 16 * 1024

    /// What an answer was computed from (see the type's documentation).
    struct Key {
        let generation: UInt64
        let tenant: TenantID
        let namesOtherTenants: Bool
        let method: String
        let target: String
        let body: [UInt8]
        /// Each header name the computation asked for, as asked, and the value it got (nil: none).
        let headers: [String: String?]

        /// Bytes held by the key's texts.
        var size: Int {
            headers.reduce(tenant.rawValue.utf8.count + method.utf8.count + target.utf8.count + body.count) {
                $0 + $1.key.utf8.count + ($1.value?.utf8.count ?? 0)
            }
        }

        /// Whether `request` of `tenant`, at `generation`, would be computed from the same inputs:
        /// the target, method and header values byte for byte, as the body (tester finding
        /// tester38a-F4: compared as `String`s, by canonical equivalence, a target or header value
        /// with the KELVIN SIGN, or in NFD, got the kept 404 of its ASCII or NFC twin, whose near
        /// misses, reason and journaled `nearMisses` showed bytes the app never sent, and whose
        /// `matchingTenants` could differ).
        func holds(for request: HTTPRequest, tenant: TenantID, namesOtherTenants: Bool, generation: UInt64) -> Bool {
            self.generation == generation && target.hasSameBytes(as: request.target) && method.hasSameBytes(as: request.method)
                && self.tenant == tenant && self.namesOtherTenants == namesOtherTenants && body == request.matchedBody
                && headers.allSatisfy { request.headers.first($0.key).hasSameBytes(as: $0.value) }
        }
    }

    /// Where a reused answer's entry is among its thread's (``NotFoundAnswer/memoEntry``), so
    /// that ``sent(_:date:making:)`` reads it without searching the entries again: its slot,
    /// and its id to tell whether the slot still holds it.
    struct EntryPlace {
        let id: UInt64
        let slot: Int
    }

    private struct Entry {
        let key: Key
        let answer: NotFoundAnswer
        /// Unique among the thread's entries (``EntryPlace/id``).
        let id: UInt64
        /// The answer as sent in the second `sentDate` (an HTTP-date), prepared; nil until reused.
        var sent: HTTPResponse?
        var sentDate = ""
    }

    /// One thread's entries, all of one generation, and the slot the next one replaces when full.
    private struct Recent {
        var generation: UInt64 = 0
        var entries: [Entry] = []
        var next = 0
        /// The id the next kept answer gets (``EntryPlace/id``): unique per thread.
        var nextID: UInt64 = 1

        /// Forgets every entry unless they are of `generation`.
        mutating func keepOnly(_ generation: UInt64) {
            guard generation != self.generation else { return }
            self.generation = generation
            entries.removeAll(keepingCapacity: true)
            next = 0
        }
    }

    private static let recent = PerThreadMemo<Recent> { Recent() }

    /// Answers reused so far, in this process (for tests: that the memo is used at all).
    static let reuses = Atomic<Int>(0)
    /// Reuses that queued an entry's sent form made earlier in the same second, in this process
    /// (for tests).
    static let sentFormReuses = Atomic<Int>(0)
    /// Off: every 404 is computed afresh (for tests comparing reused answers with fresh ones).
    static let isEnabled = Atomic<Bool>(true)

    /// The answer this thread kept for `request` of `tenant` at `generation`, if any; entries of
    /// another generation are dropped on the way.
    static func answer(to request: HTTPRequest, tenant: TenantID, namesOtherTenants: Bool, generation: UInt64) -> NotFoundAnswer? {
        guard isEnabled.load(ordering: .relaxed) else { return nil }
        return recent.with { recent in
            recent.keepOnly(generation)
            for slot in recent.entries.indices
            where recent.entries[slot].key.holds(for: request, tenant: tenant, namesOtherTenants: namesOtherTenants, generation: generation) {
                reuses.wrappingAdd(1, ordering: .relaxed)
                var reused = recent.entries[slot].answer
                reused.memoEntry = EntryPlace(id: recent.entries[slot].id, slot: slot)
                return reused
            }
            return nil
        }
    }

    /// The response to queue for the kept answer at `place` (``NotFoundAnswer/memoEntry``, from
    /// ``answer(to:tenant:namesOtherTenants:generation:)`` on this thread) in the second of the
    /// HTTP-date `date`: the one made for that second earlier, else `making()`'s, prepared and
    /// kept for the rest of the second. `making()`'s own, unprepared, when the entry is gone (a
    /// change since, or the memo switched off). The entry is read at its slot, not searched for
    /// again.
    static func sent(_ place: EntryPlace, date: String, making: () -> HTTPResponse) -> HTTPResponse {
        recent.with { recent in
            let index = place.slot
            guard recent.entries.indices.contains(index), recent.entries[index].id == place.id else { return making() }
            if let sent = recent.entries[index].sent, recent.entries[index].sentDate == date {
                sentFormReuses.wrappingAdd(1, ordering: .relaxed)
                return sent
            }
            let made = making().prepared()
            recent.entries[index].sent = made
            recent.entries[index].sentDate = date
            return made
        }
    }

    /// Keeps `answer`, computed from `key`, unless it is larger than ``entryBytesLimit``; when
    /// the thread keeps ``entriesPerThread`` already, in place of the oldest.
    static func keep(_ answer: NotFoundAnswer, key: Key) {
        guard isEnabled.load(ordering: .relaxed), key.size + answer.response.body.count <= entryBytesLimit else { return }
        recent.with { recent in
            recent.keepOnly(key.generation)
            let entry = Entry(key: key, answer: answer, id: recent.nextID)
            recent.nextID += 1
            if recent.entries.count < entriesPerThread {
                recent.entries.append(entry)
            } else {
                recent.entries[recent.next] = entry
                recent.next = (recent.next + 1) % entriesPerThread
            }
        }
    }
}
