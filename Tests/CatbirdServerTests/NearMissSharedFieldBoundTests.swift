import CatbirdTestSupport
import Foundation
import XCTest

/// Near misses among mocks whose groups share header and body fields, over real sockets
/// (docs/matching.md#near-misses): the search counts a field all mocks of a group or block have
/// and the request differs from once for all of them (try8b F4), and its 404 still names the
/// three mocks, in the order, with the distances and field verdicts, that a plain computation of
/// the documented distance over every mock gives.
final class NearMissSharedFieldBoundTests: ServerTestCase {
    /// One generated mock: what the plain computation reads.
    private struct Generated {
        let method: String
        /// `equal` or a `wildcard` ending in its only `*`.
        let urlKind: String
        let url: String
        /// By name, sorted: `equal` or a `wildcard` `*text*`.
        let headers: [(name: String, kind: String, value: String)]
        /// `contains` or `equal`; nil: none.
        let body: (kind: String, value: String)?

        var json: String {
            let headerJSON = headers.map { #""\#($0.name)":{"kind":"\#($0.kind)","value":"\#($0.value)"}"# }.joined(separator: ",")
            let bodyJSON = body.map { #","body":{"kind":"\#($0.kind)","value":"\#($0.value)"}"# } ?? ""
            return #"{"type":"update","pattern":{"method":"\#(method)","url":{"kind":"\#(urlKind)","value":"\#(url)"},"headers":{\#(headerJSON)}\#(bodyJSON)},"response":{"status":200}}"#
        }

        var identity: String { json }

        func urlMatches(_ target: String) -> Bool {
            urlKind == "equal" ? target == url : target.hasPrefix(String(url.dropLast()))
        }

        /// Each header's and the body's verdict, as a 404's fields name them, in the pattern's order.
        func verdicts(headers requestHeaders: [String: String], body requestBody: String) -> [String] {
            var verdicts = headers.map { header -> String in
                guard let value = requestHeaders[header.name] else { return "header \(header.name): missing" }
                let matches = header.kind == "equal" ? value == header.value : value.contains(header.value.replacingOccurrences(of: "*", with: ""))
                return "header \(header.name): \(matches ? "match" : "differs")"
            }
            if let body {
                let matches = body.kind == "equal" ? requestBody == body.value : requestBody.contains(body.value)
                verdicts.append("body: \(matches ? "match" : "differs")")
            }
            return verdicts
        }

        /// The documented distance, summed in field order (method, url, headers, body).
        func distance(method requestMethod: String, target: String, headers requestHeaders: [String: String], body requestBody: String) -> Double {
            var distance = requestMethod == method ? 0.0 : 1.0
            if !urlMatches(target) {
                let longer = max(url.utf8.count, target.utf8.count)
                distance += 0.25 + 0.75 * Double(referenceLevenshtein(Array(url.utf8), Array(target.utf8))) / Double(longer)
            }
            for verdict in verdicts(headers: requestHeaders, body: requestBody) where !verdict.hasSuffix(": match") {
                distance += 0.5
            }
            return distance
        }
    }

    /// Adds `count` generated mocks to `tenant` (nil: the default tenant), urls of a few lengths
    /// from a small alphabet; header and body fields mostly shared by the urls of one length.
    /// Returns them with their ids, in match order.
    private func addMocks(_ count: Int, tenant: String?, random: inout SeededRandom) throws -> [(id: Int, mock: Generated)] {
        let alphabet = Array("ab1/".utf8)
        var added: [Generated] = []
        var seen: Set<String> = []
        while added.count < count {
            let length = random.pick([3, 5, 8])
            let text = String(decoding: (0..<(length - 1)).map { _ in random.pick(alphabet) }, as: UTF8.self)
            var headers: [(name: String, kind: String, value: String)] = switch (length + (random.chance(70) ? 0 : random.below(4))) % 4 {
            case 0: []
            case 1: [("X-A", "equal", "1")]
            case 2: [("X-A", "equal", "1"), ("X-B", "wildcard", "*abc*")]
            default: [("X-A", "wildcard", "*2*"), ("X-C", "equal", "c")]
            }
            if random.chance(20) {
                headers.removeAll { $0.name == "X-B" }
                headers.append(("X-B", "equal", random.pick(["1", "abc"])))
                headers.sort { $0.name < $1.name }
            }
            let mock = Generated(
                method: random.chance(75) ? "GET" : "POST", urlKind: random.chance(15) ? "wildcard" : "equal",
                url: "/" + text, headers: headers,
                body: random.chance(25) ? ("contains", "zz") : random.chance(10) ? ("equal", "hello") : nil)
            let stored = mock.urlKind == "wildcard" ? Generated(
                method: mock.method, urlKind: "wildcard", url: "/w" + text.dropFirst() + "*", headers: mock.headers, body: mock.body) : mock
            guard seen.insert(stored.identity).inserted else { continue }
            let answer = try client.json("POST", "/catbird/api/mocks", stored.json, headers: E2E.tenantHeader(tenant))
            XCTAssertEqual(answer.status, 201, answer.text)
            added.append(stored)
        }
        let listed = try E2E.mocks(client, tenant: tenant)
        XCTAssertEqual(listed.count, added.count)
        return zip(listed, added).map { listed, mock in
            XCTAssertEqual(((listed["pattern"] as? [String: Any])?["url"] as? [String: Any])?["value"] as? String, mock.url)
            return (JSONNumber.int(listed["id"]) ?? -1, mock)
        }
    }

    func testGeneratedTablesWithSharedFieldsGetTheThreeOfAPlainComputationOverEveryMock() throws {
        var random = SeededRandom(seed: 2026)
        let shared = try addMocks(40, tenant: nil, random: &random)
        for seed: UInt64 in [11, 12, 13] {
            var random = SeededRandom(seed: seed)
            let tenant = "g\(seed)"
            let own = try addMocks(150, tenant: tenant, random: &random)
            var checked = 0
            for round in 0..<40 {
                let alphabet = Array("ab1/".utf8)
                let text = String(decoding: (0..<random.pick([1, 3, 6, 10])).map { _ in random.pick(alphabet) }, as: UTF8.self)
                let target = (random.chance(15) ? "/w" : "/") + text
                var headers: [String: String] = [:]
                for name in ["X-A", "X-B", "X-C"] where random.chance(50) {
                    headers[name] = random.pick(["1", "2", "xabcx", "c", "no"])
                }
                let method = random.pick(["GET", "GET", "POST", "PUT"])
                let body = random.pick(["", "zz", "hello", "xzzx"])
                // Rank 0: the shard's own mocks, rank 1: the default tenant's; then position.
                let ranked = [own, shared].enumerated().flatMap { rank, mocks in
                    mocks.enumerated().map { position, entry in
                        (distance: entry.mock.distance(method: method, target: target, headers: headers, body: body), rank: rank,
                         position: position, id: entry.id, verdicts: entry.mock.verdicts(headers: headers, body: body))
                    }
                }.sorted { ($0.distance, $0.rank, $0.position) < ($1.distance, $1.rank, $1.position) }
                // A request some mock answers is no miss.
                guard let closest = ranked.first, closest.distance > 0 else { continue }
                let miss = try client.request(
                    method, target, headers: E2E.tenantHeader(tenant) + headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
                    body: Array(body.utf8))
                let context = "seed \(seed) round \(round): \(method) \(target) \(headers) \(body)"
                XCTAssertEqual(miss.status, 404, context)
                let reported = try XCTUnwrap(miss.object["nearMisses"] as? [[String: Any]], context)
                XCTAssertEqual(reported.compactMap { JSONNumber.int($0["mockId"]) }, ranked.prefix(3).map(\.id), context)
                XCTAssertEqual(
                    reported.compactMap { JSONNumber.double($0["distance"]) }, ranked.prefix(3).map { ($0.distance * 1000).rounded() / 1000 },
                    context)
                let verdicts = reported.map { nearMiss in
                    ((nearMiss["fields"] as? [[String: Any]]) ?? []).dropFirst(2).map {
                        "\($0["field"] as? String ?? "")\(($0["name"] as? String).map { " " + $0 } ?? ""): \($0["verdict"] as? String ?? "")"
                    }
                }
                XCTAssertEqual(verdicts, ranked.prefix(3).map(\.verdicts), context)
                checked += 1
            }
            XCTAssertGreaterThan(checked, 25, "seed \(seed): most generated requests are misses")
        }
    }
}
