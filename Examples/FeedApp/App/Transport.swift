import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A response the app got from its backend (or from Catbird in its place).
struct HTTPAnswer {
    let status: Int
    let body: Data
}

/// The backend could not be reached at all (no HTTP answer).
struct TransportError: Error, CustomStringConvertible {
    let description: String
}

/// Sends requests with a `URLSession` and waits for each answer, which keeps the command-line
/// app free of callbacks.
struct Transport {
    let session: URLSession

    /// Sends `request` and blocks until its answer (or failure) arrives.
    func send(_ request: URLRequest) throws(TransportError) -> HTTPAnswer {
        let outcome = Outcome()
        let done = DispatchSemaphore(value: 0)
        let task = session.dataTask(with: request) { data, response, error in
            outcome.store(data: data, response: response, error: error)
            done.signal()
        }
        task.resume()
        done.wait()
        return try outcome.answer(for: request)
    }
}

/// What a data task's completion handler delivered, handed from URLSession's queue to the
/// waiting thread.
private final class Outcome: @unchecked Sendable {
    // @unchecked Sendable: the fields are written once, by the completion handler, before it
    // signals the semaphore, and read only after `wait()` returns; the semaphore orders the
    // write before the read, so there is never concurrent access.
    private var data: Data?
    private var response: URLResponse?
    private var error: Error?

    func store(data: Data?, response: URLResponse?, error: Error?) {
        self.data = data
        self.response = response
        self.error = error
    }

    func answer(for request: URLRequest) throws(TransportError) -> HTTPAnswer {
        let target = request.url?.absoluteString ?? "(no URL)"
        if let error {
            throw TransportError(description: "\(request.httpMethod ?? "GET") \(target) failed: \(error.localizedDescription)")
        }
        guard let http = response as? HTTPURLResponse else {
            throw TransportError(description: "\(request.httpMethod ?? "GET") \(target): no HTTP response")
        }
        return HTTPAnswer(status: http.statusCode, body: data ?? Data())
    }
}
