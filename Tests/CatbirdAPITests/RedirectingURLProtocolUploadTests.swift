import CatbirdAPI
import CatbirdAppSupport
import CatbirdTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// An upload task through `RedirectingURLProtocol` (tester finding T18C-F1): the protocol
/// cannot see its body, so the request fails loudly instead of reaching Catbird empty.
final class RedirectingURLProtocolUploadTests: XCTestCase {
    override func tearDown() {
        CatbirdAppConfiguration.unregisterURLProtocol()
        super.tearDown()
    }

    func testAnUploadTaskFailsInsteadOfSendingAnEmptyBody() async throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let catbird = server.catbird("t18c-proto")
        try catbird.send(.update(
            RequestPattern(method: .POST, url: "/upload", body: .contains("streamed")), ResponseMock(status: 201, body: Data("uploaded".utf8))))
        let configuration = try XCTUnwrap(CatbirdAppConfiguration(serverURL: server.baseURL, parallelId: "t18c-proto"))
        let session = URLSession(configuration: configuration.installURLProtocol())
        // Not invalidateAndCancel(): swift-corelibs-foundation may still count a task whose async
        // call has returned as running, and cancelling it resumed that call's continuation a
        // second time (a crash of the test process in the CI run of 0b9b46a).
        defer { session.finishTasksAndInvalidate() }
        var upload = URLRequest(url: URL(string: "https://api.example.com/upload")!)
        upload.httpMethod = "POST"

        do {
            let (_, response) = try await session.upload(for: upload, from: Data("streamed body".utf8))
            XCTFail("answered \((response as? HTTPURLResponse)?.statusCode ?? 0) instead of failing")
        } catch let error as URLError {
            XCTAssertEqual(error.code, .requestBodyStreamExhausted)
            XCTAssertTrue(error.localizedDescription.contains("cannot send an upload task's body"), error.localizedDescription)
        }
        let journal = try await catbird.allRequests()
        XCTAssertEqual(journal.count, 0, "no request with an empty body reached Catbird")

        // The same body as a data task's httpBody goes through.
        upload.httpBody = Data("streamed body".utf8)
        let (data, response) = try await session.data(for: upload)
        XCTAssertEqual((response as? HTTPURLResponse)?.statusCode, 201)
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "uploaded")
    }
}
