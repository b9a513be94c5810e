import CatbirdServer
import CatbirdTestSupport
import Foundation
import XCTest

/// Record mode writes only what replay can serve as the upstream sent it (docs/files.md#recording):
/// an empty-valued field is left out of the sidecar; an answer replay would refuse (a status
/// outside 200–599, which the client gets as a 502) or alter (header bytes that are not UTF-8)
/// is not recorded, and says so in the journal, the log and `catbird_recordings_failed_total`. Forwarding passes encodings through.
final class RecordReplayableTests: RecordingTestCase {
    /// Regression (try6b finding 4, try6a F1): `HTTP/1.1 999 Weird` and a 204 with `X-Empty:`
    /// were recorded as sidecars replay answered with 500 (`'status' must be between 200 and 599,
    /// not 999`; `header "X-Empty" has an empty value`), and `X-Bin: \xFF\xFE` was recorded as
    /// U+FFFD twice, silently.
    func testOnlyWhatReplayCanServeAsSentIsRecorded() throws {
        let recorder = try server(recording: true)
        let client = try recorder.client()
        let weird = try client.request("GET", "/raw/status999")
        XCTAssertEqual(weird.status, 502, "a status no client can take is not passed on: \(weird.text)")
        XCTAssertEqual(try client.request("GET", "/raw/emptyval").status, 204)
        let binary = try client.request("GET", "/raw/badhdr")
        XCTAssertEqual(binary.status, 200)
        XCTAssertEqual(binary.text, "ok")

        let journal = try E2E.journal(client, tenant: nil)
        let byURL = Dictionary(uniqueKeysWithValues: journal.map { ($0["url"] as? String ?? "", $0) })
        XCTAssertEqual(
            byURL["/raw/status999"]?["problem"] as? String,
            "not recorded: the upstream answered with status 999, which is no final HTTP status (200-599, RFC 9110 section 15): answered 502 in its place")
        XCTAssertNil(byURL["/raw/status999"]?["filePath"] as? String)
        XCTAssertNil(byURL["/raw/emptyval"]?["problem"] as? String, "\(byURL["/raw/emptyval"] ?? [:])")
        let notText = byURL["/raw/badhdr"]?["problem"] as? String ?? ""
        XCTAssertTrue(notText.hasPrefix("not recorded: the upstream's header field \"X-Bin\" is not UTF-8"), notText)
        XCTAssertFalse(exists("raw/status999") || exists("raw/status999.catbird-response.json"))
        XCTAssertFalse(exists("raw/badhdr") || exists("raw/badhdr.catbird-response.json"))
        let sidecar = try String(contentsOf: mocksDirectory.appendingPathComponent("raw/emptyval.catbird-response.json"), encoding: .utf8)
        XCTAssertFalse(sidecar.contains("X-Empty"), sidecar)
        XCTAssertEqual(try E2E.metrics(client)["catbird_recordings_failed_total"], 2)
        recorder.stop()
        upstream.stop()

        let replayer = try server(recording: false)
        let replay = try replayer.client()
        XCTAssertEqual(try replay.request("GET", "/raw/emptyval").status, 204, "replayed, not a 500")
        XCTAssertEqual(try replay.request("GET", "/raw/status999").status, 404, "nothing recorded to replay")
    }

    /// A header value that starts with U+FEFF (`X-Tag: \u{FEFF}v1`) was recorded into its sidecar
    /// as sent, but replayed as `v1`: Foundation's `JSONSerialization` on Linux drops a raw U+FEFF
    /// at the start of a string it reads (the kind of tester50a-F1). The sidecar is read with it
    /// written as its escape now, so the replay sends the bytes recorded, as does a hand-written one.
    func testAHeaderValueStartingWithAByteOrderMarkIsReplayedAsRecorded() throws {
        let recorder = try server(recording: true)
        let recorded = try recorder.client().request("GET", "/raw/bomhdr")
        XCTAssertEqual(recorded.status, 200)
        XCTAssertEqual(recorded.header("X-Tag").map { Array($0.utf8) }, [0xEF, 0xBB, 0xBF, 0x76, 0x31])
        recorder.stop()
        upstream.stop()
        let sidecar = try Data(contentsOf: mocksDirectory.appendingPathComponent("raw/bomhdr.catbird-response.json"))
        XCTAssertNotNil(sidecar.firstRange(of: Data([0xEF, 0xBB, 0xBF, 0x76, 0x31])), String(decoding: sidecar, as: UTF8.self))
        try Data(#"{"headers": {"X-Hand": "\#u{FEFF}h", "X-Escaped": "\ufeffe"}}"#.utf8)
            .write(to: mocksDirectory.appendingPathComponent("raw/hand.catbird-response.json"))
        try Data("hand".utf8).write(to: mocksDirectory.appendingPathComponent("raw/hand"))
        let replayer = try server(recording: false)
        let replay = try replayer.client()
        let replayed = try replay.request("GET", "/raw/bomhdr")
        XCTAssertEqual(replayed.status, 200, replayed.text)
        XCTAssertEqual(replayed.header("X-Tag").map { Array($0.utf8) }, [0xEF, 0xBB, 0xBF, 0x76, 0x31])
        let hand = try replay.request("GET", "/raw/hand")
        XCTAssertEqual(hand.status, 200, hand.text)
        XCTAssertEqual(hand.header("X-Hand").map { Array($0.utf8) }, [0xEF, 0xBB, 0xBF, 0x68])
        XCTAssertEqual(hand.header("X-Escaped").map { Array($0.utf8) }, [0xEF, 0xBB, 0xBF, 0x65])
    }

    /// Tester finding tester52a-F5: an upstream answer whose head does not fit beside the request
    /// (answered 502 in its place) was logged "record mode: … not recorded", but its journal
    /// `problem` lacked the `not recorded: ` every other unrecorded answer's has, and
    /// `catbird_recordings_failed_total` did not count it.
    func testAnAnswerWhoseHeadDoesNotFitIsJournaledAndCountedAsNotRecorded() throws {
        let recorder = try server(recording: true)
        let client = try recorder.client()
        let before = try E2E.metrics(client)["catbird_recordings_failed_total"] ?? 0
        XCTAssertEqual(try client.request("GET", "/raw/bighead").status, 502)
        let entry = try XCTUnwrap(try E2E.journal(client, tenant: nil).first { $0["url"] as? String == "/raw/bighead" })
        let problem = entry["problem"] as? String ?? ""
        XCTAssertTrue(problem.hasPrefix("not recorded: the upstream's answer has a header section of "), problem)
        XCTAssertEqual(try E2E.metrics(client)["catbird_recordings_failed_total"], before + 1)
        XCTAssertFalse(exists("raw/bighead"))
    }

    /// Tester finding T14-F1, the exact upstream answer `X-A: 1\rX-B: 2`: libmicrohttpd refused
    /// the field on the wire, while the journal said it went out (`"X-A":"1\rX-B: 2"`), and in
    /// plain redirect mode nothing said it was dropped. It is now left out of the answer and of
    /// the journal, and the entry's `problem` names it, in redirect mode and in record mode
    /// (which records nothing of such an answer).
    ///
    /// Tester finding tester26a-F1, the exact upstream answer `: v` (a field with an empty name,
    /// which libmicrohttpd refuses too): it went out without it, while the journal, its
    /// `headerFields` and the HAR said `"": "v"` went out. Left out and said alike now.
    func testAnUpstreamFieldThatCannotBeSentIsLeftOutAndSaidInEveryMode() throws {
        let redirecting = try TestServer { $0.redirectURL = self.upstream.baseURL }
        let recording = try server(recording: true)
        for (path, name) in [("/raw/crhdr", "X-A"), ("/raw/emptyname", "")] {
            for (server, prefix) in [(redirecting, ""), (recording, "not recorded: ")] {
                let client = try server.client()
                let answer = try client.request("GET", path)
                XCTAssertEqual(answer.status, 200)
                XCTAssertEqual(answer.text, "ok")
                XCTAssertFalse(answer.headers.contains { $0.name == name }, "not sent: \(answer.headers)")
                let entry = try XCTUnwrap(try E2E.journal(client, tenant: nil).first { $0["url"] as? String == path })
                let headers = (entry["response"] as? [String: Any])?["headers"] as? [String: Any] ?? [:]
                XCTAssertNil(headers[name], "journaled as sent: \(headers)")
                XCTAssertEqual(Set(headers.keys), Set(answer.headers.map(\.name)), "the journal holds the fields that went out")
                XCTAssertEqual(
                    entry["problem"] as? String,
                    prefix + "the upstream's header field \"\(name)\" could not be sent (a CR or LF in the value, or an empty name, or "
                        + "a space, tab, CR or LF in the name, which no header field can carry) and was left out of the answer")
            }
        }
        XCTAssertFalse(exists("raw/crhdr") || exists("raw/crhdr.catbird-response.json"), "nothing recorded")
        XCTAssertFalse(exists("raw/emptyname") || exists("raw/emptyname.catbird-response.json"), "nothing recorded")
        XCTAssertEqual(try E2E.metrics(try recording.client())["catbird_recordings_failed_total"], 2)
    }

    /// Tester finding T14-F5, the exact upstream answer `Content-Length: 2` and `Content-Length: 5`
    /// with `hello`: passed on as `Content-Length: 5` (libcurl picked one) and recorded. RFC 9112
    /// section 6.3 item 5: a proxy discards it and answers 502; marked as Catbird's own, not recorded.
    func testAnUpstreamAnswerWhoseContentLengthsDifferIsA502AndNotRecorded() throws {
        let recorder = try server(recording: true)
        let client = try recorder.client()
        let answer = try client.request("GET", "/raw/clmismatch")
        let problem = "the upstream's answer has Content-Length values that differ (\"2\", \"5\"), so where its body ends is "
            + "ambiguous (RFC 9112 section 6.3): answered 502 in its place"
        try assertMarked502NotRecorded(answer, path: "/raw/clmismatch", problem: problem, client: client)
    }

    /// tester26a-F7: in record mode the 502 in place of an upstream's status 600 told the client
    /// `not recorded: the upstream answered with status 600, …`, the journal's wording; without
    /// record mode its reason had no such prefix. The client's reason is the same in both modes
    /// (so for differing Content-Length values); only the entry's `problem` says `not recorded: `.
    func testRecordModeSaysNotRecordedOnlyInTheJournal() throws {
        let redirecting = try TestServer { $0.redirectURL = self.upstream.baseURL }
        defer { redirecting.removeFiles() }
        let recording = try server(recording: true)
        let cases = [
            ("/status/600", "the upstream answered with status 600, which is no final HTTP status (200-599, RFC 9110 section 15): "
                + "answered 502 in its place"),
            ("/raw/clmismatch", "the upstream's answer has Content-Length values that differ (\"2\", \"5\"), so where its body ends "
                + "is ambiguous (RFC 9112 section 6.3): answered 502 in its place"),
        ]
        for (server, prefix) in [(redirecting, ""), (recording, "not recorded: ")] {
            let client = try server.client()
            for (path, reason) in cases {
                let answer = try client.request("GET", path)
                XCTAssertEqual(answer.status, 502, "\(path): \(answer.text)")
                XCTAssertEqual(answer.object["reason"] as? String, reason, "\(prefix)\(path)")
                let entry = try XCTUnwrap(try E2E.journal(client, tenant: nil).first { $0["url"] as? String == path }, path)
                XCTAssertEqual(entry["problem"] as? String, prefix + reason, path)
            }
        }
    }

    /// Leftover of session 14's closing note: an upstream answer with `Content-Length: abc` and
    /// `hello` was answered `502 upstream unreachable: … Invalid Content-Length: value` (the
    /// upstream was reached), with no `problem` journaled; one with `Content-Length: 0x5` went
    /// out as a 200 with an empty body (libcurl read the `0`) and was recorded. Like differing
    /// values (RFC 9112 section 6.3 item 5): a marked 502 saying so, journaled, not recorded.
    func testAnUpstreamAnswerWhoseContentLengthIsNoNumberIsA502AndNotRecorded() throws {
        let recorder = try server(recording: true)
        let client = try recorder.client()
        let cases = [
            ("/raw/clabc", "(libcurl: Invalid Content-Length: value; "),
            ("/raw/clhex", "(\"0x5\"; "),
            // Tester finding T15B-F2's values, each with `abc`: `0x3` went out as an empty 200
            // and was recorded; `+3` and the two past 2^63-1 went out as `abc`.
            ("/raw/clhex3", "(\"0x3\"; "),
            ("/raw/clplus3", "(\"+3\"; "),
            ("/raw/clbig", "(\"9999999999999999999\"; "),
            ("/raw/clbig64", "(\"18446744073709551616\"; "),
        ]
        for (path, shown) in cases {
            let answer = try client.request("GET", path)
            let problem = "the upstream's answer has a Content-Length that is no valid length \(shown)a length is digits only, "
                + "RFC 9110 section 8.6, at most 9223372036854775807 here), so where its body ends cannot be told (RFC 9112 "
                + "section 6.3): answered 502 in its place"
            try assertMarked502NotRecorded(answer, path: path, problem: problem, client: client)
        }
        XCTAssertEqual(try E2E.metrics(try recorder.client())["catbird_recordings_failed_total"], Double(cases.count))
    }

    /// Regression (try6a F2): record mode forwarded `Accept-Encoding: deflate, gzip, br, zstd`
    /// that the client never sent, and answered a gzip upstream's body decoded without its
    /// `Content-Encoding`. Now the client's `Accept-Encoding` (or none) goes as sent, the body
    /// comes back encoded, and its recording replays the same bytes and `Content-Encoding`.
    func testRecordModeForwardsTheClientsAcceptEncodingAndKeepsTheEncodedBody() throws {
        let recorder = try server(recording: true)
        let client = try recorder.client()
        let echo = try client.request("GET", "/echo/plain")
        let sent = (echo.object["headers"] as? [[String]] ?? []).map { $0.first?.lowercased() ?? "" }
        XCTAssertFalse(sent.contains("accept-encoding"), "\(sent)")
        let gzip = try client.request("GET", "/gzip", headers: [("Accept-Encoding", "gzip")])
        XCTAssertEqual(gzip.header("Content-Encoding"), "gzip")
        XCTAssertEqual(Array(gzip.body.prefix(2)), [0x1F, 0x8B], "still compressed")
        recorder.stop()
        upstream.stop()

        let replayer = try server(recording: false)
        let replayed = try replayer.client().request("GET", "/gzip")
        XCTAssertEqual(replayed.status, 200)
        XCTAssertEqual(replayed.header("Content-Encoding"), "gzip")
        XCTAssertEqual(replayed.body, gzip.body)
    }

    /// Tester finding tester26a-F6: an answer whose head just fit beside the request live (the
    /// tester's: 32,492 bytes sent) was recorded, and the very same request replayed it as a
    /// 500 (`… has a header section of 32546 bytes, more than the 32496 bytes left …`): a file
    /// answer adds `ETag` and `Accept-Ranges: bytes`. Here the longest `X-Big` the live answer
    /// carries (`/bigheader/<n>`, found by bisection with one request head) is still answered,
    /// but not recorded, its `problem` saying why; and every answer that was recorded is
    /// replayed to the identical request, as recorded.
    func testAnAnswerWhoseReplayHeadWouldNotFitIsNotRecordedAndEveryRecordingReplays() throws {
        let recorder = try server(recording: true)
        func get(_ server: TestServer, _ length: Int) throws -> RawResponse {
            try RawHTTPClient(port: server.port).request("GET", "/bigheader/\(length)", headers: [("Connection", "close")])
        }
        var (fits, tooLarge) = (20_000, 40_000)
        while tooLarge - fits > 1 {
            let middle = (fits + tooLarge) / 2
            if try get(recorder, middle).status == 200 { fits = middle } else { tooLarge = middle }
        }
        let edge = try get(recorder, fits)
        XCTAssertEqual(edge.status, 200, "the client still gets the answer")
        XCTAssertEqual(edge.header("X-Big")?.utf8.count, fits)
        XCTAssertEqual(try get(recorder, fits - 100).status, 200, "100 bytes shorter: recorded, and replayed below")
        let journal = try E2E.journal(try recorder.client(), tenant: nil)
        let entry = try XCTUnwrap(journal.first { $0["url"] as? String == "/bigheader/\(fits)" })
        let problem = entry["problem"] as? String ?? ""
        XCTAssertTrue(
            problem.hasPrefix("not recorded: a file mock of this answer (with the ETag and Accept-Ranges a file answer adds) has a header "
                + "section of "), problem)
        XCTAssertTrue(problem.hasSuffix(" bytes libmicrohttpd gives each connection (docs/protocol.md#response-head-size)"), problem)
        XCTAssertFalse(exists("bigheader/\(fits)") || exists("bigheader/\(fits).catbird-response.json"), "not recorded")
        let recorded = journal.compactMap { entry -> Int? in
            guard !E2E.isNull(entry["filePath"]), entry["filePath"] != nil else { return nil }
            return (entry["url"] as? String).flatMap { Int($0.dropFirst("/bigheader/".count)) }
        }
        XCTAssertTrue(recorded.contains(fits - 100), "\(recorded)")
        XCTAssertGreaterThanOrEqual(try E2E.metrics(try recorder.client())["catbird_recordings_failed_total"] ?? 0, 1)
        recorder.stop()
        upstream.stop()

        let replayer = try server(recording: false)
        for length in recorded {
            let replay = try get(replayer, length)
            XCTAssertEqual(replay.status, 200, "\(length): \(replay.text)")
            XCTAssertEqual(replay.header("X-Big")?.utf8.count, length)
            XCTAssertEqual(replay.text, "big")
        }
    }
}
