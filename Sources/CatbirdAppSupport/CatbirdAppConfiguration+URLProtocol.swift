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
    /// response, body, or error is handed back as is. A redirect (`3xx` with `Location`) is
    /// not followed by that session: it is handed to the app's session, which applies its own
    /// redirect policy and delegate and sends a followed request through this protocol again
    /// (so to Catbird, with the tenant header). On Linux (swift-corelibs-foundation, whose
    /// sessions cannot take a redirect from a URL protocol) the follow-up is sent by the
    /// protocol's session instead, aimed at Catbird again with the tenant header, without
    /// asking the app's delegate (tester finding T18C-F2: the follow-up went to the production
    /// host, without the header). A request already aimed at the server keeps its URL and gets
    /// the header.
    ///
    /// What the app's session adds is not applied: the protocol sees the task's request, not
    /// its session, and sends it through one forwarding session per process, so the session
    /// configuration's `httpAdditionalHeaders`, `timeoutIntervalForRequest`, cookie storage and
    /// `httpShouldSetCookies` do not reach Catbird (cookies are shared by every session through
    /// the protocol; tester findings tester57b-F4, F5). The request's own `timeoutInterval` holds:
    /// past it the request fails with `URLError(.timedOut)` (tester57b-F6). One configuration is
    /// redirected to per process: installing or registering another moves the sessions made with
    /// the first to it (tester57b-F9).
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
        static let handledKey = "CatbirdAppConfiguration.RedirectingURLProtocol"

        /// Collects the forwarded requests' answers for the protocol instances.
        private static let forwardingDelegate = ForwardingDelegate()

        /// The session the redirected requests go through (no protocol of ours in it).
        private static let forwardingSession = URLSession(configuration: .ephemeral, delegate: forwardingDelegate, delegateQueue: nil)

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
            let timeout = request.timeoutInterval
            let request = Self.copy(of: configuration.redirect(request), timeout: timeout, marked: true)
            let loading = Loading(protocol: self)
            // Started from another queue: swift-corelibs-foundation calls startLoading on its URL
            // sessions' shared work queue, and making or resuming a task of another session there
            // waits for that same queue (a crash). Apple's Foundation does not mind either way.
            DispatchQueue.global().async {
                let task = Self.forwardingSession.dataTask(with: request)
                guard loading.protocol.forwarding.start(task) else { return }
                Self.forwardingDelegate.register(task, for: loading.protocol, configuration: configuration)
                task.resume()
                // The request's own timeout, which the forwarding session does not apply.
                if timeout > 0, timeout.isFinite {
                    let forwarded = SendableTask(task: task)
                    DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { Self.forwardingDelegate.timeOut(forwarded.task) }
                }
            }
        }

        /// Cancels the redirected request (or keeps it from starting).
        public override func stopLoading() {
            forwarding.cancel()
        }

        /// `request` as a new mutable request (only such a one can carry the "handled" mark),
        /// with the mark when `marked`; no cache, so each request reaches Catbird and its journal.
        /// (The requests copied always have a URL: ``canInit(with:)`` takes only those, and a
        /// redirect's follow-up has its `Location`.)
        static func copy(of request: URLRequest, timeout: TimeInterval, marked: Bool) -> URLRequest {
            let copy = NSMutableURLRequest(
                url: request.url ?? URL(fileURLWithPath: "/"), cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
            copy.httpMethod = request.httpMethod ?? "GET"
            copy.allHTTPHeaderFields = request.allHTTPHeaderFields
            copy.httpBody = request.httpBody
            if let stream = request.httpBodyStream { copy.httpBodyStream = stream }
            if marked { setProperty(true, forKey: handledKey, in: copy) }
            return copy as URLRequest
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
        // @unchecked Sendable: the work only hands the instance to the forwarding delegate
        // (which calls its `client`, callable from any thread as the URL loading system
        // requires) and calls its `forwarding`, which locks.
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

        /// Whether ``cancel()`` was called (the app's session stopped the load).
        var isCancelled: Bool {
            lock.lock()
            defer { lock.unlock() }
            return cancelled
        }

        /// Marks the forwarding cancelled and cancels its task from another queue: the URL
        /// loading system calls `stopLoading` on the sessions' shared work queue
        /// (swift-corelibs-foundation), and cancelling a task of another session there waits for
        /// that same queue, which libdispatch stops with a crash (CI run of e7bd104, a session's
        /// `invalidateAndCancel()` while a forwarded request was under way).
        func cancel() {
            lock.lock()
            cancelled = true
            let task = self.task.map(SendableTask.init)
            lock.unlock()
            guard let task else { return }
            DispatchQueue.global().async { task.task.cancel() }
        }
    }

    /// A forwarding task handed to the queue that cancels it.
    private struct SendableTask: @unchecked Sendable {
        // @unchecked Sendable: `URLSessionTask.cancel()` may be called from any thread.
        let task: URLSessionDataTask
    }

    /// Registers ``RedirectingURLProtocol`` for this configuration with `URLProtocol`, so that
    /// `URLSession.shared` (on Apple platforms) sends every `http`/`https` request to Catbird.
    /// Registering again replaces the configuration; ``unregisterURLProtocol()`` undoes it.
    ///
    /// On Linux registering reaches no session: swift-corelibs-foundation asks a session's
    /// configuration's `protocolClasses` first, and they always hold its own HTTP protocol,
    /// which takes every `http`/`https` request (tester finding tester44c-F3: nothing reached
    /// Catbird, `URLSession.shared` included). There, make the app's sessions from
    /// ``installURLProtocol(in:)``; this call says so on standard error.
    public func registerURLProtocol() {
        RedirectingURLProtocol.active.value = self
        _ = URLProtocol.registerClass(RedirectingURLProtocol.self)
        #if os(Linux)
        FileHandle.standardError.write(Data(Self.registeringReachesNoSession.utf8))
        #endif
    }

    #if os(Linux)
    /// What ``registerURLProtocol()`` writes on Linux.
    static let registeringReachesNoSession = """
        CatbirdAppSupport: registerURLProtocol() reaches no URLSession on Linux (swift-corelibs-foundation asks a \
        session's own protocol classes first, and its HTTP protocol takes every request); make the app's sessions from \
        CatbirdAppConfiguration.current?.installURLProtocol(in: .default) instead, or use url(for:) and sessionConfiguration()

        """
    #endif

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
