import CatbirdTestSupport
import Foundation
import XCTest

final class ZZProbeTmp: XCTestCase {
    func testProbe() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        try E2E.addMock(client, tenant: "café", url: "/c", body: "c")
        print("PROBE café", try client.request("GET", "/c", headers: E2E.tenantHeader("café")).text)
        print("PROBE tenants", try E2E.tenants(client).map { $0["id"]! })
        print("PROBE empty header", try client.request("GET", "/c", headers: [("X-Catbird-Parallel-Id", "")]).status, try E2E.journal(client, tenant: nil).count)
        print("PROBE space header", try client.request("GET", "/c", headers: [("X-Catbird-Parallel-Id", "  café  ")]).text)
        let d = try client.request("DELETE", "/catbird/api/tenants/caf%C3%A9")
        print("PROBE delete café", d.status, d.text)
        let z = try client.request("DELETE", "/catbird/api/tenants/%ZZ")
        print("PROBE delete %ZZ", z.status, z.text)
        let e = try client.request("DELETE", "/catbird/api/tenants/")
        print("PROBE delete empty", e.status, e.text)
        let s = try client.json("POST", "/catbird/api/sql", #"{"sql":"SELECT 1","params":"x"}"#)
        print("PROBE sql bad params", s.status, s.text)
        let s2 = try client.json("POST", "/catbird/api/sql", #"{"sql":"SELECT ?","params":[[1]]}"#)
        print("PROBE sql nested", s2.status, s2.text)
        let s3 = try client.json("POST", "/catbird/api/sql", #"{"sql":"SELECT 9223372036854775807, 1.5e300, 'a\"b'"}"#)
        print("PROBE sql big", s3.status, s3.text)
        let s4 = try client.json("POST", "/catbird/api/sql", #"{"sql":"PRAGMA table_info(requests)"}"#)
        print("PROBE pragma", s4.status, s4.text.prefix(200))
        let s5 = try client.json("POST", "/catbird/api/sql", #"{"sql":"SELECT 1e999"}"#)
        print("PROBE inf", s5.status, s5.text)
        let s6 = try client.json("POST", "/catbird/api/sql", #"{"sql":"SELECT 0.0/0, abs(-9223372036854775807-1)"}"#)
        print("PROBE nan", s6.status, s6.text)
        let c = try client.json("POST", "/catbird/api/requests/count", #"{"pattern":{"method":"GET","url":{"kind":"wildcard","value":"*"}}}"#, headers: E2E.tenantHeader("café"))
        print("PROBE count café", c.status, c.text)
        let h = try client.request("HEAD", "/c")
        print("PROBE head", h.status)
        let j = try client.request("GET", "/catbird/api/requests?url=a+b")
        print("PROBE plus", j.status)
        let m = try client.request("GET", "/catbird/api/requests?limit=2&limit=3&")
        print("PROBE dup", m.status, m.text.prefix(100))
        let m2 = try client.request("GET", "/catbird/api/requests?&")
        print("PROBE amp", m2.status, m2.text.prefix(100))
    }
}
