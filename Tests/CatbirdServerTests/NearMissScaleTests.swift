import CatbirdTestSupport
import Foundation
import XCTest

/// Near misses among many mocks over real sockets (docs/matching.md#near-misses): every mock of
/// the tenant is considered, not just the first ones, so the closest of 1,000 mocks is found
/// wherever it sits, and the three reported are those a plain computation of the documented
/// distance over all 1,000 ranks first.
final class NearMissScaleTests: ServerTestCase {
    /// The tenant's 1,000 mocks: alternating wildcard `/w/<i>/*` and regexp `^/r/<i>/[a-z]+$`
    /// (the benchmark's mix), except the 900th, `GET /api/orders/recent`, and the 950th, a
    /// `POST` of the same url.
    private func addMocks(tenant: String) throws -> [(id: Int, method: String, url: String)] {
        for index in 0..<1000 {
            let (method, kind, url): (String, String, String) = switch index {
            case 899: ("GET", "equal", "/api/orders/recent")
            case 949: ("POST", "equal", "/api/orders/recent")
            case let even where even % 2 == 0: ("GET", "wildcard", "/w/\(index)/*")
            default: ("GET", "regexp", "^/r/\(index)/[a-z]+$")
            }
            let action = #"{"type":"update","pattern":{"method":"\#(method)","url":{"kind":"\#(kind)","value":"\#(url)"}},"response":{"status":200}}"#
            let answer = try client.json("POST", "/catbird/api/mocks", action, headers: E2E.tenantHeader(tenant))
            XCTAssertEqual(answer.status, 201, answer.text)
        }
        return try E2E.mocks(client, tenant: tenant).map { mock in
            let pattern = mock["pattern"] as? [String: Any]
            return (JSONNumber.int(mock["id"]) ?? -1, pattern?["method"] as? String ?? "",
                    (pattern?["url"] as? [String: Any])?["value"] as? String ?? "")
        }
    }

    func testTheClosestOf1000MocksIsFoundWhereverItIsAndTheThreeReportedAreTheClosestByTheDocumentedDistance() throws {
        let mocks = try addMocks(tenant: "big")
        XCTAssertEqual(mocks.count, 1000)
        let misses = ["/api/order/recent", "/api/orders/recnt?x=1", "/w/12", "/r/13/abc1", "/miss/nothing", "/R/7/"]
        for target in misses {
            let miss = try client.request("GET", target, headers: E2E.tenantHeader("big"))
            XCTAssertEqual(miss.status, 404, target)
            let reported = try XCTUnwrap(miss.object["nearMisses"] as? [[String: Any]], target)

            // No url here matches any mock's url pattern, so each distance is the method's and the url's.
            let ranked = mocks.enumerated().map { position, mock in
                let longer = max(mock.url.utf8.count, target.utf8.count)
                let distance = (mock.method == "GET" ? 0 : 1) + 0.25 + 0.75 * Double(referenceLevenshtein(Array(mock.url.utf8.prefix(128)), Array(target.utf8.prefix(128)))) / Double(longer)
                return (distance: distance, position: position, id: mock.id)
            }.sorted { ($0.distance, $0.position) < ($1.distance, $1.position) }
            XCTAssertEqual(reported.compactMap { JSONNumber.int($0["mockId"]) }, ranked.prefix(3).map(\.id), target)
            XCTAssertEqual(
                reported.compactMap { JSONNumber.double($0["distance"]) }, ranked.prefix(3).map { ($0.distance * 1000).rounded() / 1000 },
                target)
        }

        let typo = try client.request("GET", "/api/order/recent", headers: E2E.tenantHeader("big"))
        let closest = try XCTUnwrap((typo.object["nearMisses"] as? [[String: Any]])?.first)
        XCTAssertEqual(JSONNumber.int(closest["mockId"]), mocks[899].id, "the 900th mock")
        XCTAssertEqual(JSONNumber.int(closest["position"]), 900)
        XCTAssertTrue(
            (typo.object["reason"] as? String ?? "").contains(#"the closest is mock \#(mocks[899].id) (GET equal "/api/orders/recent") of tenant "big""#),
            typo.text)
    }

    /// Many mocks of few url lengths and methods, urls from a small alphabet (so that groups,
    /// blocks and ties by position abound): for random targets, the three reported are the three
    /// closest of a plain computation over every mock, whichever group, block or tenant order
    /// the search skips by its bounds.
    func testRandomMocksOfFewLengthsGetTheSameThreeAsAPlainRanking() throws {
        var random = SeededRandom(seed: 77)
        let alphabet = Array("/ab1-".utf8)
        func text(_ length: Int) -> String {
            String(decoding: (0..<length).map { _ in random.pick(alphabet) }, as: UTF8.self)
        }
        var added: [(method: String, url: String)] = []
        for _ in 0..<400 {
            let method = random.pick(["GET", "GET", "POST", "PUT"])
            // Wildcards and regexps under /q/ (no target starts so): no url pattern matches a target.
            let (kind, url): (String, String) = switch random.below(4) {
            case 0: ("wildcard", "/q/" + text(random.pick([2, 5])) + "*")
            case 1: ("regexp", "^/q/" + text(random.pick([3, 6])) + "$")
            default: ("equal", "/" + text(random.pick([4, 7, 8, 12])))
            }
            let action = #"{"type":"update","pattern":{"method":"\#(method)","url":{"kind":"\#(kind)","value":"\#(url)"}},"response":{"status":200}}"#
            let answer = try client.json("POST", "/catbird/api/mocks", action, headers: E2E.tenantHeader("random"))
            XCTAssertEqual(answer.status, 201, answer.text)
            added.append((method, url))
        }
        let mocks = try E2E.mocks(client, tenant: "random").map { mock in
            let pattern = mock["pattern"] as? [String: Any]
            return (id: JSONNumber.int(mock["id"]) ?? -1, method: pattern?["method"] as? String ?? "",
                    url: (pattern?["url"] as? [String: Any])?["value"] as? String ?? "")
        }
        XCTAssertEqual(mocks.count, Set(added.map { "\($0.method) \($0.url)" }).count, "one mock per distinct pattern")
        for round in 0..<40 {
            let method = random.pick(["GET", "POST", "DELETE"])
            let target = "/" + text(random.pick([0, 3, 4, 7, 8, 11, 12, 20]))
            guard !mocks.contains(where: { $0.method == method && $0.url == target }) else { continue }
            let miss = try client.request(method, target, headers: E2E.tenantHeader("random"))
            XCTAssertEqual(miss.status, 404, target)
            let reported = try XCTUnwrap(miss.object["nearMisses"] as? [[String: Any]], target)
            let ranked = mocks.enumerated().map { position, mock in
                let longer = max(mock.url.utf8.count, target.utf8.count)
                let url = 0.25 + 0.75 * Double(referenceLevenshtein(Array(mock.url.utf8), Array(target.utf8))) / Double(longer)
                return (distance: (mock.method == method ? 0 : 1) + url, position: position, id: mock.id)
            }.sorted { ($0.distance, $0.position) < ($1.distance, $1.position) }
            XCTAssertEqual(reported.compactMap { JSONNumber.int($0["mockId"]) }, ranked.prefix(3).map(\.id), "round \(round): \(method) \(target)")
            XCTAssertEqual(
                reported.compactMap { JSONNumber.double($0["distance"]) }, ranked.prefix(3).map { ($0.distance * 1000).rounded() / 1000 },
                "round \(round): \(method) \(target)")
        }
    }
}
