import CatbirdSupport
import Foundation
import XCTest

/// The journal's text columns as written on every request: header fields as a JSON object
/// (`JSONText.object`) and the arrival time (`Timestamp`), checked against Foundation's own
/// JSON parser and calendar.
final class JournalTextEncodingTests: XCTestCase {
    func testHeaderObjectGroupsRepeatedNamesCaseInsensitivelyInOrderOfFirstAppearance() throws {
        let json = JSONText.object([
            (name: "X-Token", value: "abc"), (name: "Host", value: "h"), (name: "x-token", value: "def"), (name: "X-TOKEN", value: "ghi"),
        ])
        XCTAssertEqual(json, #"{"X-Token":["abc","def","ghi"],"Host":"h"}"#)
        XCTAssertEqual(JSONText.object([(name: String, value: String)]()), "{}")
    }

    /// The reused text of a recent field list (`JSONText.objectReusingRecent`, the journal's
    /// request headers) is reused only for the same bytes: two values canonically equivalent,
    /// of one length and one ending (the marks below U+1E0C in either order), share the list's
    /// fingerprint, and Swift's `==` called them equal, so the second got the first's text
    /// (tester38a-F3's kind: `String ==` where bytes were meant). Compared as bytes here.
    func testARecentFieldListsTextIsReusedOnlyForTheSameBytes() throws {
        let first = "D\u{323}\u{307}-same-end"
        let second = "D\u{307}\u{323}-same-end"
        XCTAssertEqual(first, second, "Swift calls them equal")
        XCTAssertNotEqual(Array(first.utf8), Array(second.utf8))
        let one = JSONText.objectReusingRecent([(name: "X-Mark", value: first)])
        let other = JSONText.objectReusingRecent([(name: "X-Mark", value: second)])
        XCTAssertEqual(Array(one.utf8), Array(JSONText.object([(name: "X-Mark", value: first)]).utf8))
        XCTAssertEqual(Array(other.utf8), Array(JSONText.object([(name: "X-Mark", value: second)]).utf8), "its own bytes, not the first's")
        XCTAssertEqual(Array(JSONText.objectReusingRecent([(name: "X-Mark", value: first)]).utf8), Array(one.utf8), "reused for the same bytes")
    }

    func testHeaderObjectEscapesQuotesBackslashesAndControlBytesAndKeepsNonASCII() throws {
        let value = "a\"b\\c\nd\re\tf\u{01}g\u{1F}h é ✓ 🐦"
        let json = JSONText.object([(name: "Na\"me", value: value)])
        XCTAssertEqual(json, #"{"Na\"me":"a\"b\\c\nd\re\tf\u0001g\u001fh é ✓ 🐦"}"#)
        let parsed = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: String])
        XCTAssertEqual(parsed, ["Na\"me": value])
        XCTAssertEqual(JSONText.string("plain"), #""plain""#)
    }

    /// A mock's header JSON with the fields added when sent (Date, Content-Length) appended:
    /// escaped like the rest, after the mock's own keys, and a valid object in every case.
    func testAppendingFieldsToAHeaderObject() throws {
        let added = [(name: "Date", value: "Tue, 01 Dec 2026 02:00:00 GMT"), (name: "X-\"Q", value: "a\nb")]
        let appended = JSONText.appending(added, to: #"{"Content-Type":"application/json"}"#)
        XCTAssertEqual(appended, #"{"Content-Type":"application/json","Date":"Tue, 01 Dec 2026 02:00:00 GMT","X-\"Q":"a\nb"}"#)
        let parsed = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(appended.utf8)) as? [String: String])
        XCTAssertEqual(parsed["X-\"Q"], "a\nb")
        XCTAssertEqual(JSONText.appending(added, to: "{}"), JSONText.object(added))
        XCTAssertEqual(JSONText.appending([], to: #"{"A":"b"}"#), #"{"A":"b"}"#)
    }

    /// A memo gives the text `appending` would, reused while the pairs stay the same and
    /// written anew when one differs (the next second's `Date`, a `Connection: close`).
    func testAppendingMemoReusesTheTextOnlyForTheSamePairs() {
        let memo = JSONText.AppendingMemo()
        let object = #"{"Content-Type":"text/plain"}"#
        let first = [(name: "Date", value: "Tue, 01 Dec 2026 02:00:00 GMT"), (name: "Content-Length", value: "2")]
        XCTAssertEqual(memo.appending(first, to: object), JSONText.appending(first, to: object))
        XCTAssertEqual(memo.appending(first, to: object), JSONText.appending(first, to: object))
        let later = [(name: "Date", value: "Tue, 01 Dec 2026 02:00:01 GMT"), (name: "Content-Length", value: "2")]
        XCTAssertEqual(memo.appending(later, to: object), JSONText.appending(later, to: object))
        let closing = later + [(name: "Connection", value: "close")]
        XCTAssertEqual(memo.appending(closing, to: object), JSONText.appending(closing, to: object))
        XCTAssertEqual(memo.appending(later, to: object), JSONText.appending(later, to: object))
    }

    /// Header names compare with ASCII capitals folded only: same length and bytes otherwise,
    /// long (heap-stored) names as well as short ones, non-ASCII letters exactly.
    /// The reused header text is always the text of the fields given: lists interleaved, more
    /// of them than a thread remembers, lists whose cheap fingerprint is the same (same lengths,
    /// same last 8 bytes of each value) and lists equal but for a name's case or one field.
    func testHeaderObjectReuseGivesTheTextOfTheFieldsGiven() {
        var lists: [[(name: String, value: String)]] = []
        for index in 0..<40 {
            let shard = "\(Character(Unicode.Scalar(UInt8(97 + index % 26))))\(index / 26)-shard-00000000"
            lists.append([(name: "Host", value: "h"), (name: "X-Catbird-Parallel-Id", value: shard)])
        }
        lists.append([(name: "Host", value: "h"), (name: "x-catbird-parallel-id", value: "a0-shard-00000000")])
        lists.append([(name: "Host", value: "h"), (name: "X-Catbird-Parallel-Id", value: "a0-shard-00000000"), (name: "Host", value: "h")])
        lists.append([(name: "Host", value: "h")])
        lists.append([])
        for round in 0..<3 {
            for (index, fields) in lists.enumerated() where round < 2 || index % 3 == 0 {
                XCTAssertEqual(JSONText.objectReusingRecent(fields), JSONText.object(fields), "round \(round), list \(index)")
            }
            for fields in lists.prefix(8).reversed() {
                XCTAssertEqual(JSONText.objectReusingRecent(fields), JSONText.object(fields))
            }
        }
    }

    func testHeaderNamesCompareIgnoringASCIICaseOnly() {
        XCTAssertTrue("Content-Length".equalsIgnoringASCIICase("content-LENGTH"))
        XCTAssertTrue("X-Catbird-Parallel-Id-With-A-Long-Name".equalsIgnoringASCIICase("x-catbird-parallel-id-with-a-long-name"))
        XCTAssertFalse("Content-Length".equalsIgnoringASCIICase("Content-Lengths"))
        XCTAssertFalse("Content-Length".equalsIgnoringASCIICase("Content_Length"))
        XCTAssertFalse("[".equalsIgnoringASCIICase("{"))  // 0x5B and 0x7B differ by 32 but are not letters
        XCTAssertFalse("É".equalsIgnoringASCIICase("é"))
        XCTAssertTrue("é".equalsIgnoringASCIICase("é"))
        XCTAssertTrue("".equalsIgnoringASCIICase(""))
        // Bytes, not Unicode equivalence: the same marks in another order are another text.
        XCTAssertFalse("a\u{301}\u{316}".equalsIgnoringASCIICase("a\u{316}\u{301}"))
        XCTAssertTrue("X-Catbird-Parallel-Id".equalsIgnoringASCIICase(String(decoding: Array("X-Catbird-Parallel-Id".utf8), as: UTF8.self)))
    }

    func testHeaderObjectWithThousandsOfFieldsGroupsThemAll() throws {
        // More than the pairwise comparison handles: the dictionary path, same result.
        let fields = (0..<3000).map { (name: "X-F\($0 % 1000)", value: "\($0)") }
        let parsed = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(JSONText.object(fields).utf8)) as? [String: [String]])
        XCTAssertEqual(parsed.count, 1000)
        XCTAssertEqual(parsed["X-F7"], ["7", "1007", "2007"])
        let small = (0..<20).map { (name: $0 % 2 == 0 ? "A" : "a", value: "\($0)") }
        XCTAssertEqual(JSONText.object(small), #"{"A":["# + (0..<20).map { "\"\($0)\"" }.joined(separator: ",") + "]}")
        // Each name once, whatever the count (pairwise up to 32 fields, then the dictionary):
        // one string per name, in order; one repeat at the end turns that name into an array.
        for count in [1, 16, 17, 32, 33, 100] {
            let distinct = (0..<count).map { (name: "N\($0)", value: "v\($0)") }
            let expected = (0..<count).map { #""N\#($0)":"v\#($0)""# }.joined(separator: ",")
            XCTAssertEqual(JSONText.object(distinct), "{\(expected)}", "\(count) names")
            let repeated = distinct + [(name: "n0", value: "again")]
            let grouped = [#""N0":["v0","again"]"#] + (1..<count).map { #""N\#($0)":"v\#($0)""# }
            XCTAssertEqual(JSONText.object(repeated), "{\(grouped.joined(separator: ","))}", "\(count) names and a repeat")
        }
    }

    func testTimestampsAreWrittenWithMillisecondsAndReadBack() throws {
        XCTAssertEqual(Timestamp.string(millisecondsSince1970: 0), "1970-01-01T00:00:00.000Z")
        XCTAssertEqual(Timestamp.string(millisecondsSince1970: 1_795_975_287_123), "2026-11-29T18:01:27.123Z")
        XCTAssertEqual(Timestamp.string(millisecondsSince1970: 951_868_800_000 - 1), "2000-02-29T23:59:59.999Z")
        XCTAssertEqual(Timestamp.string(millisecondsSince1970: -1), "1969-12-31T23:59:59.999Z")
        XCTAssertEqual(Timestamp.string(millisecondsSince1970: 253_402_300_800_000), "10000-01-01T00:00:00.000Z")
        let now = Timestamp.now()
        let date = try XCTUnwrap(Timestamp.date(from: now))
        XCTAssertLessThan(abs(date.timeIntervalSinceNow), 5)
        XCTAssertEqual(Timestamp.string(from: date), now)
    }
}
