import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension CatbirdAppConfiguration {
    /// A `URLProtocol` that sends every `http`/`https` request of the sessions it is installed
    /// in to Catbird: the URL rewritten by ``CatbirdAppConfiguration/url(for:)`` and
    /// `X-Catbird-Parallel-Id` added, as ``CatbirdAppConfiguration/redirect(_:)`` does.
    ///
    /// For apps whose SDKs (analytics, crash reporting, ads) send through `URLSession.shared`,
    /// which the app cannot give a configuration of its own. **Off by default**: nothing is
    /// redirected until the app calls ``CatbirdAppConfiguration/registerURLProtocol()``,
    /// typically in a debug build when ``CatbirdAppConfiguration/current`` is not nil:
    ///
    /// ```swift
    /// #if DEBUG
    /// CatbirdAppConfiguration.current?.registerURLProtocol()   // URLSession.shared now goes to Catbird
    /// #endif
    /// ```
    ///
    /// On Apple platforms registering reaches `URLSession.shared` and every session made from
    /// `.default`/`.ephemeral` afterwards; a session with a configuration of its own gets it
    /// through ``CatbirdAppConfiguration/installURLProtocol(in:)``, which works on every
    /// platform (Linux included).
    ///
    /// Each redirected request is sent once, by an ephemeral session of this protocol, and its
    /// response, body, or error is handed back as is; redirects are followed by that session.
    /// A request already aimed at the server keeps its URL and gets the header.
    ///
    /// Upload tasks: a URL protocol sees only the task's request, and an upload task
    /// (`upload(for:from:)`, `uploadTask(with:from:)`, `uploadTask(with:fromFile:)`) keeps its
    /// body outside it, so the protocol cannot send that body on. Such a request fails with
    /// `URLError(.requestBodyStreamExhausted)` and a description saying so, rather than reaching
    /// Catbird with an empty body (tester finding T18C-F1, on Linux; an upload whose request
    /// carries an `httpBodyStream` is sent with it). Send the body as the request's `httpBody`
    /// with a data task (`data(for:)`), or aim the app's session at Catbird with
    /// ``CatbirdAppConfiguration/url(for:)`` and ``CatbirdAppConfiguration/sessionConfiguration(_:)``
    /// instead of this protocol.
    public final class RedirectingURLProtocol: URLProtocol {

        /// The configuration requests are redirected to; nil while not registered.
        static let active = ConfigurationBox()

        /// Marks a request this protocol already redirected, so that it does not take it again.
        private static let handledKey = "CatbirdAppConfiguration.RedirectingURLProtocol"

        /// The session the redirected requests go through (no protocol of ours in it).
        private static let forwardingSession = URLSession(configuration: .ephemeral)

        let forwarding = Forwarding()

        /// Takes every `http`/`https` request it has not redirected yet, while a configuration
        /// is registered or installed.
        public override class func canInit(with request: URLRequest) -> Bool {
            guard active.value != nil, let scheme = request.url?.scheme?.lowercased(), scheme == "http" || scheme == "https"
            else { return false }
            return property(forKey: handledKey, in: request) == nil
        }

        /// The request as it is.
        public override class func canonicalRequest(for request: URLRequest) -> URLRequest {
            request
        }

        /// Sends the redirected request and hands its outcome to the client; fails an upload
        /// task whose body this protocol cannot see (see ``RedirectingURLProtocol``).
        public override func startLoading() {
            guard let configuration = Self.active.value else {
                client?.urlProtocol(self, didFailWithError: URLError(.cancelled))
                return
            }
            if task is URLSessionUploadTask, request.httpBody == nil, request.httpBodyStream == nil {
                client?.urlProtocol(self, didFailWithError: Self.unreachableUploadBody(request.url))
                return
            }
            // A mutable request, since only it can carry the "handled" mark; no cache, so each
            // request reaches Catbird and its journal.
            let plain = configuration.redirect(request)
            let redirected = NSMutableURLRequest(
                url: plain.url ?? configuration.serverURL, cachePolicy: .reloadIgnoringLocalCacheData,
                timeoutInterval: request.timeoutInterval)
            redirected.httpMethod = plain.httpMethod ?? "GET"
            redirected.allHTTPHeaderFields = plain.allHTTPHeaderFields
            redirected.httpBody = plain.httpBody
            if let stream = plain.httpBodyStream { redirected.httpBodyStream = stream }
            Self.setProperty(true, forKey: Self.handledKey, in: redirected)
            let request = redirected as URLRequest
            let loading = Loading(protocol: self)
            // Started from another queue: swift-corelibs-foundation calls startLoading on its URL
            // sessions' shared work queue, and making or resuming a task of another session there
            // waits for that same queue (a crash). Apple's Foundation does not mind either way.
            DispatchQueue.global().async {
                let task = Self.forwardingSession.dataTask(with: request) { data, response, error in
                    let instance = loading.protocol
                    if let error {
                        instance.client?.urlProtocol(instance, didFailWithError: error)
                        return
                    }
                    if let response {
                        instance.client?.urlProtocol(instance, didReceive: response, cacheStoragePolicy: .notAllowed)
                    }
                    if let data, !data.isEmpty {
                        instance.client?.urlProtocol(instance, didLoad: data)
                    }
                    instance.client?.urlProtocolDidFinishLoading(instance)
                }
                if loading.protocol.forwarding.start(task) { task.resume() }
            }
        }

        /// Cancels the redirected request (or keeps it from starting).
        public override func stopLoading() {
            forwarding.cancel()
        }

        /// The error of an upload task whose body this protocol cannot see.
        private static func unreachableUploadBody(_ url: URL?) -> URLError {
            var userInfo: [String: Any] = [
                NSLocalizedDescriptionKey: "CatbirdAppConfiguration.RedirectingURLProtocol cannot send an upload task's body "
                    + "on to Catbird (a URL protocol sees only the task's request, and the body is not in it); "
                    + "send it as the request's httpBody with a data task, or aim the session at Catbird with "
                    + "url(for:) and sessionConfiguration() instead of the URL protocol"
            ]
            if let url { userInfo[NSURLErrorFailingURLErrorKey] = url }
            return URLError(.requestBodyStreamExhausted, userInfo: userInfo)
        }
    }

    /// The protocol instance, for the forwarding work on another queue.
    private struct Loading: @unchecked Sendable {
        // @unchecked Sendable: the work only calls the instance's `client`, which the URL
        // loading system requires to be callable from any thread, and its `forwarding`, which
        // locks.
        let `protocol`: RedirectingURLProtocol
    }

    /// The forwarding task of one ``RedirectingURLProtocol``, started on one queue and
    /// cancelled from another.
    final class Forwarding: @unchecked Sendable {
        // @unchecked Sendable: `task` and `cancelled` are only touched under `lock`.
        private let lock = NSLock()
        private var task: URLSessionDataTask?
        private var cancelled = false

        /// Records `task`; false (do not resume it) when cancelled already.
        func start(_ task: URLSessionDataTask) -> Bool {
            lock.lock()
            defer { lock.unlock() }
            self.task = task
            return !cancelled
        }

        func cancel() {
            lock.lock()
            cancelled = true
            let task = self.task
            lock.unlock()
            task?.cancel()
        }
    }

    /// Registers ``RedirectingURLProtocol`` for this configuration with `URLProtocol`, so that
    /// `URLSession.shared` (on Apple platforms) sends every `http`/`https` request to Catbird.
    /// Registering again replaces the configuration; ``unregisterURLProtocol()`` undoes it.
    public func registerURLProtocol() {
        RedirectingURLProtocol.active.value = self
        _ = URLProtocol.registerClass(RedirectingURLProtocol.self)
    }

    /// Stops ``RedirectingURLProtocol``: unregisters it and leaves requests alone.
    public static func unregisterURLProtocol() {
        URLProtocol.unregisterClass(RedirectingURLProtocol.self)
        RedirectingURLProtocol.active.value = nil
    }

    /// A copy of `base` that sends every `http`/`https` request to Catbird through
    /// ``RedirectingURLProtocol`` (put first in its `protocolClasses`), for this configuration.
    /// Replaces the configuration a previous ``registerURLProtocol()`` or install set.
    public func installURLProtocol(in base: URLSessionConfiguration = .default) -> URLSessionConfiguration {
        RedirectingURLProtocol.active.value = self
        let configuration = base.copy() as? URLSessionConfiguration ?? base
        configuration.protocolClasses = [RedirectingURLProtocol.self] + (configuration.protocolClasses ?? [])
        return configuration
    }
}

/// The configuration ``CatbirdAppConfiguration/RedirectingURLProtocol`` redirects to.
final class ConfigurationBox: @unchecked Sendable {
    // @unchecked Sendable: `stored` is only read and written under `lock`.
    private let lock = NSLock()
    private var stored: CatbirdAppConfiguration?

    var value: CatbirdAppConfiguration? {
        get {
            lock.lock()
            defer { lock.unlock() }
            return stored
        }
        set {
            lock.lock()
            stored = newValue
            lock.unlock()
        }
    }
}
