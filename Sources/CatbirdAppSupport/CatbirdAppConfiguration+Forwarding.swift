import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension CatbirdAppConfiguration {
    /// The delegate of ``RedirectingURLProtocol``'s forwarding session: collects each
    /// forwarded request's answer and hands it to the protocol instance that sent it, and
    /// keeps that session from following a redirect to where the app's request first pointed
    /// (tester finding T18C-F2: it followed a mocked `302` to the production host, without the
    /// tenant header, and the app's own session never saw the `302`).
    ///
    /// A redirect is handed to the app's session (`urlProtocol(_:wasRedirectedTo:redirectResponse:)`),
    /// which applies its own redirect policy and delegate and sends a followed request through
    /// the protocol again. swift-corelibs-foundation's session cannot take a redirect from a
    /// URL protocol (it stops the process), so on Linux the follow-up is sent by the
    /// forwarding session itself, aimed at Catbird again by ``CatbirdAppConfiguration/redirect(_:)``
    /// (with the tenant header); the app's delegate is not asked there.
    final class ForwardingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
        // @unchecked Sendable: `loads` and the mutable fields of its Loads are only touched
        // under `lock`, except a Load's fields read after didCompleteWithError removed it
        // (the session sends nothing more for that task); a Load's `let`s never change.
        private let lock = NSLock()
        private var loads: [Int: Load] = [:]

        /// One forwarded request: the protocol instance to answer, the configuration it was
        /// sent with, and what has arrived so far.
        private final class Load {
            let instance: RedirectingURLProtocol
            let configuration: CatbirdAppConfiguration
            var response: URLResponse?
            var data = Data()
            /// Whether the request was handed back to the app's session as a redirect.
            var redirected = false
            /// Whether the request's own `timeoutInterval` passed first (``timeOut(_:)``).
            var timedOut = false

            init(instance: RedirectingURLProtocol, configuration: CatbirdAppConfiguration) {
                self.instance = instance
                self.configuration = configuration
            }
        }

        /// Records that `task`'s answer goes to `instance`.
        func register(_ task: URLSessionTask, for instance: RedirectingURLProtocol, configuration: CatbirdAppConfiguration) {
            lock.lock()
            loads[task.taskIdentifier] = Load(instance: instance, configuration: configuration)
            lock.unlock()
        }

        /// Ends `task` with `URLError(.timedOut)` when it is still under way: its request's
        /// `timeoutInterval` passed (the forwarding session's own timeout, 60 s, ignored the
        /// app's shorter one: tester finding tester57b-F6, a 3 s mock answered 200 to a request
        /// of 1 s). Any thread.
        func timeOut(_ task: URLSessionTask) {
            guard withLoad(of: task, { $0.timedOut = true }) != nil else { return }
            task.cancel()
        }

        /// Runs `body` on `task`'s load under the lock; nil when the task is unknown.
        private func withLoad<Result>(of task: URLSessionTask, _ body: (Load) -> Result) -> Result? {
            lock.lock()
            defer { lock.unlock() }
            return loads[task.taskIdentifier].map(body)
        }

        func urlSession(
            _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
            completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
        ) {
            _ = withLoad(of: dataTask) { $0.response = response }
            completionHandler(.allow)
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            _ = withLoad(of: dataTask) { $0.data.append(data) }
        }

        func urlSession(
            _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
        ) {
            guard let load = withLoad(of: task, { $0 }) else { return completionHandler(nil) }
            #if canImport(FoundationNetworking)
            completionHandler(
                RedirectingURLProtocol.copy(of: load.configuration.redirect(request), timeout: request.timeoutInterval, marked: true))
            #else
            _ = withLoad(of: task) { $0.redirected = true }
            let instance = load.instance
            let followUp = RedirectingURLProtocol.appFacing(request, location: response, original: instance.request)
            instance.client?.urlProtocol(instance, wasRedirectedTo: followUp, redirectResponse: response)
            // Stops this load; the app's session starts a new one for the follow-up if its
            // policy follows it (Apple's CustomHTTPProtocol sample does the same).
            completionHandler(nil)
            #endif
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            lock.lock()
            let load = loads.removeValue(forKey: task.taskIdentifier)
            lock.unlock()
            guard let load else { return }
            let instance = load.instance
            // Stopped by the app's session (stopLoading): its client must not be called any more
            // (swift-corelibs-foundation stops the process when a task no longer in the session's
            // registry is answered, after invalidateAndCancel()).
            guard !instance.forwarding.isCancelled else { return }
            if load.redirected {
                instance.client?.urlProtocol(instance, didFailWithError: CocoaError(.userCancelled))
                return
            }
            if load.timedOut {
                var userInfo: [String: Any] = [NSLocalizedDescriptionKey: "The request timed out."]
                if let url = instance.request.url { userInfo[NSURLErrorFailingURLErrorKey] = url }
                instance.client?.urlProtocol(instance, didFailWithError: URLError(.timedOut, userInfo: userInfo))
                return
            }
            if let error {
                instance.client?.urlProtocol(instance, didFailWithError: error)
                return
            }
            if let response = load.response {
                instance.client?.urlProtocol(instance, didReceive: response, cacheStoragePolicy: .notAllowed)
            }
            // All at once: swift-corelibs-foundation keeps only the last chunk handed over
            // for a task with a completion handler.
            if !load.data.isEmpty {
                instance.client?.urlProtocol(instance, didLoad: load.data)
            }
            instance.client?.urlProtocolDidFinishLoading(instance)
        }
    }
}

extension CatbirdAppConfiguration.RedirectingURLProtocol {
    /// The follow-up of a redirect as the app's session should see it: the `Location` resolved
    /// against the app's own URL (not Catbird's), without this protocol's mark, so the session
    /// sends it through the protocol again.
    static func appFacing(_ request: URLRequest, location response: HTTPURLResponse, original: URLRequest) -> URLRequest {
        var followUp = request
        if let location = response.value(forHTTPHeaderField: "Location"),
           let resolved = URL(string: location, relativeTo: original.url)?.absoluteURL {
            followUp.url = resolved
        }
        return copy(of: followUp, timeout: request.timeoutInterval, marked: false)
    }
}
