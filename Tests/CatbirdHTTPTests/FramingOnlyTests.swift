import CatbirdHTTP
import CatbirdSupport
import XCTest

/// ``HTTPRequest/getsFramingOnly`` against the rules it stands for
/// (``HTTPResponse/fieldsAddedOnSending(to:fileLength:)``): a request it says yes to gets, for
/// every kind of response, exactly the fields a plain HTTP/1.1 `GET` gets; each request it says
/// no to gets other fields for at least one response (so the rule is not merely cautious).
final class FramingOnlyTests: XCTestCase {
    private func request(_ method: String, version: String = "HTTP/1.1", connection: String? = nil) -> HTTPRequest {
        var request = HTTPRequest(method: method, target: "/a", headers: HTTPHeaders(connection.map { [("Connection", $0)] } ?? []))
        request.version = version
        return request
    }

    private let responses: [HTTPResponse] = [
        HTTPResponse(status: 200, body: Array("ok".utf8)), HTTPResponse(status: 204), HTTPResponse(status: 404, body: [1, 2, 3]),
        HTTPResponse(status: 200, content: .stream(length: nil, HTTPBodyStream { _, _ in .finished })),
        HTTPResponse(status: 101), HTTPResponse(status: 200, content: .unframed),
    ]

    private func fields(_ response: HTTPResponse, _ request: HTTPRequest) -> [String] {
        response.fieldsAddedOnSending(to: request).map { "\($0.name): \($0.value)" }
    }

    /// Regression for the rule's source (the lead's re-read of tester finding T18A-F6's fix,
    /// which named `CONNECT` in the server beside a copy of the HTTP layer's rules): the exact
    /// requests, a `CONNECT` (its 200 unframed), HTTP/1.0 and `Connection: close`.
    func testTheRuleMatchesTheFieldsLibmicrohttpdAdds() {
        let plainGet = request("GET")
        XCTAssertTrue(plainGet.getsFramingOnly)
        let yes = [request("HEAD"), request("POST"), request("DELETE"), request("PATCH"), request("OPTIONS"), request("BREW")]
        let no = [request("CONNECT"), request("GET", version: "HTTP/1.0"), request("GET", connection: "close"),
                  request("GET", version: "HTTP/1.0", connection: "keep-alive"), request("GET", connection: "Upgrade")]
        for candidate in yes {
            XCTAssertTrue(candidate.getsFramingOnly, candidate.method)
            for response in responses {
                XCTAssertEqual(fields(response, candidate), fields(response, plainGet), "\(candidate.method) \(response.status)")
            }
        }
        for candidate in no {
            XCTAssertFalse(candidate.getsFramingOnly, "\(candidate.method) \(candidate.version) \(candidate.headers.fields)")
            // `Connection: Upgrade` adds nothing today; the rule still says no to any Connection field.
            if candidate.headers.first("Connection") == "Upgrade" { continue }
            XCTAssertTrue(
                responses.contains { fields($0, candidate) != fields($0, plainGet) },
                "\(candidate.method) \(candidate.version) \(candidate.headers.fields) gets a GET's fields for every response")
        }
    }
}
