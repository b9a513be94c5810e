import CatbirdSupport
import CCurl
import Dispatch
import Foundation
import Synchronization

/// Sends requests upstream through libcurl's multi interface on one transfer thread of its own:
/// any number of requests wait at once without holding a thread each, each on a connection of its
/// own that is closed once its answer is read (``configure(_:)``), redirects are returned, not followed.
///
/// ```swift
/// let client = OutboundClient(timeout: .seconds(30))
/// client.send(OutboundRequest(method: "GET", url: "http://127.0.0.1:9000/a")) { result in … }
/// client.shutdown()
/// ```
/// Completions run on a Dispatch global queue, never on the transfer thread.
public final class OutboundClient: Sendable {
    /// Longest a whole exchange may take, connect to last byte.
    public let timeout: Duration
    /// Longest the connection (TCP and TLS) may take.
    public let connectTimeout: Duration
    /// Largest response body accepted, in bytes; past it the request fails with
    /// ``OutboundError/responseTooLarge(limit:)``.
    public let maxResponseSize: Int
    /// A PEM file of the CA certificates `https://` upstreams are verified against
    /// (`CURLOPT_CAINFO`); nil: libcurl's default, the system's store. Peer and host name are
    /// always verified.
    public let caFile: String?
    /// The server-wide budget response bodies take their bytes from as they arrive (the one
    /// request bodies take from: `--max-buffered-bodies`); past it the request fails with
    /// ``OutboundError/overBudget(limit:)``. Nil: none.
    public let budget: ByteBudget?

    private struct State {
        var pending: [OutboundTransfer] = []
        var stopping = false
    }

    /// `@unchecked Sendable`: the multi handle is used only by the transfer thread, except for
    /// `curl_multi_wakeup`, which libcurl documents as callable from any thread.
    private struct Multi: @unchecked Sendable {
        let handle: UnsafeMutableRawPointer
    }

    private let state = Mutex(State())
    private let multi: Multi
    private let finished = DispatchSemaphore(value: 0)
    /// Completions handed to Dispatch that have not returned yet: ``shutdown()`` waits for them,
    /// so that what they do (journal a forwarded request's answer, the 503 of a stopping server
    /// included) is done before the caller closes what they use (try7a F3: half the time the
    /// journal was closed first and the entry lost).
    private let completing = DispatchGroup()
    /// Longest ``shutdown()`` waits for running completions.
    private static let completionsAtShutdown: DispatchTimeInterval = .seconds(10)

    /// Starts the transfer thread.
    /// - Parameters:
    ///   - timeout: longest a whole exchange may take (default 30 s).
    ///   - connectTimeout: longest connecting may take (default 5 s).
    ///   - maxResponseSize: largest response body in bytes (default 50 MiB).
    ///   - caFile: a PEM file of CA certificates to verify `https://` upstreams against instead of
    ///     the system's (a test's or a company's own CA); nil: the system's.
    ///   - budget: the budget response bodies take from (``budget``); nil: none.
    public init(
        timeout: Duration = .seconds(30), connectTimeout: Duration = .seconds(5), maxResponseSize: Int = 50 << 20,
        caFile: String? = nil, budget: ByteBudget? = nil
    ) {
        self.caFile = caFile
        self.budget = budget
        self.timeout = timeout
        self.connectTimeout = connectTimeout
        self.maxResponseSize = maxResponseSize
        Self.globalInit
        guard let handle = curl_multi_init() else { fatalError("curl_multi_init failed: out of memory") }
        multi = Multi(handle: handle)
        let thread = Thread.named("catbird-curl") { [self] in run() }
        thread.start()
    }

    /// `curl_global_init` once per process, before any other libcurl call.
    private static let globalInit: Void = {
        _ = curl_global_init(Int(CURL_GLOBAL_DEFAULT))
    }()

    /// Sends `request`; `completion` is called exactly once with the response or the reason
    /// there is none.
    /// - Parameter isWanted: asked on the transfer thread while the transfer runs, once per
    ///   ``wantedCheckInterval`` (the gap is at most twice it); once it returns false the transfer is given up (its connection
    ///   closed, `curl_multi_remove_handle`) and `completion` gets ``OutboundError/cancelled``.
    ///   Must be quick and must not call into this client.
    public func send(
        _ request: OutboundRequest, isWanted: @escaping @Sendable () -> Bool = { true },
        completion: @escaping @Sendable (Result<OutboundResponse, OutboundError>) -> Void
    ) {
        let transfer = OutboundTransfer(
            request: request, maxResponseSize: maxResponseSize, budget: budget, isWanted: isWanted, completion: completion)
        let accepted = state.withLock { state -> Bool in
            if state.stopping { return false }
            state.pending.append(transfer)
            return true
        }
        guard accepted else { return completion(.failure(.shutDown)) }
        curl_multi_wakeup(multi.handle)
    }

    /// Fails the requests still waiting with ``OutboundError/shutDown``, stops the transfer
    /// thread, and waits (at most 10 s) until every completion handed out has returned. Safe to
    /// call twice.
    public func shutdown() {
        let first = state.withLock { state -> Bool in
            defer { state.stopping = true }
            return !state.stopping
        }
        guard first else { return }
        curl_multi_wakeup(multi.handle)
        finished.wait()
        _ = completing.wait(timeout: .now() + Self.completionsAtShutdown)
    }

    deinit {
        shutdown()
        curl_multi_cleanup(multi.handle)
    }

    /// The transfer thread: adds new requests, drives libcurl, hands finished ones back.
    private func run() {
        var active: [UnsafeMutableRawPointer] = []
        var lastWantedCheck = ContinuousClock.now
        while true {
            let (incoming, stopping) = state.withLock { state in
                defer { state.pending = [] }
                return (state.pending, state.stopping)
            }
            if stopping {
                for transfer in incoming { complete(transfer, .failure(.shutDown)) }
                for easy in active { finish(easy, result: .failure(.shutDown)) }
                finished.signal()
                return
            }
            for transfer in incoming {
                guard let easy = configure(transfer) else {
                    complete(transfer, .failure(.unreachable("cannot set up the upstream request")))
                    continue
                }
                curl_multi_add_handle(multi.handle, easy)
                active.append(easy)
            }
            var running: Int32 = 0
            curl_multi_perform(multi.handle, &running)
            var left: Int32 = 0
            while let message = curl_multi_info_read(multi.handle, &left) {
                let code = catbird_curl_done_result(message)
                guard code >= 0, let easy = message.pointee.easy_handle else { continue }
                active.removeAll { $0 == easy }
                finish(easy, result: outcome(of: easy, code: CURLcode(UInt32(code))))
            }
            // Asked once per interval, not on every round (a round per socket event).
            if !active.isEmpty, ContinuousClock.now - lastWantedCheck >= Self.wantedCheckInterval {
                lastWantedCheck = ContinuousClock.now
                active.removeAll { easy in
                    guard !Self.transfer(of: easy).isWanted() else { return false }
                    finish(easy, result: .failure(.cancelled))
                    return true
                }
            }
            // While transfers run, woken at least every wantedCheckInterval, so isWanted is
            // asked at most twice that apart.
            let wait: Int32 = active.isEmpty ? 1000 : Int32(Self.wantedCheckInterval / .milliseconds(1))
            curl_multi_poll(multi.handle, nil, 0, wait, nil)
        }
    }

    /// How often running transfers' `isWanted` is asked (``send(_:isWanted:completion:)``): a
    /// transfer nobody waits for is given up within twice this time.
    public static let wantedCheckInterval = Duration.milliseconds(100)

    private static func transfer(of easy: UnsafeMutableRawPointer) -> OutboundTransfer {
        Unmanaged<OutboundTransfer>.fromOpaque(catbird_curl_private(easy)).takeUnretainedValue()
    }

    private func outcome(of easy: UnsafeMutableRawPointer, code: CURLcode) -> Result<OutboundResponse, OutboundError> {
        let transfer = Unmanaged<OutboundTransfer>.fromOpaque(catbird_curl_private(easy)).takeUnretainedValue()
        if code == CURLE_OK, let reason = transfer.incompleteHead { return .failure(.unusable(reason: reason)) }
        if code == CURLE_OK {
            let status = Int(catbird_curl_getinfo_long(easy, CURLINFO_RESPONSE_CODE))
            var response = OutboundResponse(status: status, headers: transfer.headers, fieldsNotUTF8: transfer.fieldsNotUTF8, body: transfer.body)
            response.share = transfer.share
            return .success(response)
        }
        if transfer.tooLarge { return .failure(.responseTooLarge(limit: maxResponseSize)) }
        if transfer.overBudget, let budget {
            return .failure(.overBudget(limit: budget.limit, holderShare: transfer.passedShare ? budget.holderShare : nil))
        }
        let detail = transfer.errorBuffer.pointee == 0 ? String(cString: curl_easy_strerror(code)) : String(cString: transfer.errorBuffer)
        if let reason = transfer.unusable { return .failure(.unusable(reason: reason)) }
        if code == CURLE_PARTIAL_FILE { return .failure(.unusable(reason: transfer.cutShortBody)) }
        if let value = transfer.invalidLength { return .failure(.invalidContentLength(value: value, detail: detail)) }
        if code == CURLE_WEIRD_SERVER_REPLY, detail.hasPrefix("Invalid Content-Length") {
            // libcurl refused the line itself (`abc`, `-1`, empty) before handing it over.
            return .failure(.invalidContentLength(value: nil, detail: detail))
        }
        if let reason = transfer.unreadableAnswer(code, detail: detail) { return .failure(.unusable(reason: reason)) }
        let reason = "upstream \(URLPassword.hidden(in: transfer.request.url)): " + detail
        switch code {
        case CURLE_OPERATION_TIMEDOUT: return .failure(.timedOut(reason + (transfer.arrivedBeforeTimeout.map { "; " + $0 } ?? "")))
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CERTPROBLEM: return .failure(.untrusted(reason))
        default: return .failure(.unreachable(reason))
        }
    }

    /// Removes `easy` from the multi handle, frees it and completes its transfer.
    private func finish(_ easy: UnsafeMutableRawPointer, result: Result<OutboundResponse, OutboundError>) {
        let unmanaged = Unmanaged<OutboundTransfer>.fromOpaque(catbird_curl_private(easy))
        curl_multi_remove_handle(multi.handle, easy)
        curl_easy_cleanup(easy)
        let transfer = unmanaged.takeRetainedValue()
        complete(transfer, result)
    }

    private func complete(_ transfer: OutboundTransfer, _ result: Result<OutboundResponse, OutboundError>) {
        let completion = transfer.completion
        completing.enter()
        DispatchQueue.global().async { [completing] in
            completion(result)
            completing.leave()
        }
    }
}
