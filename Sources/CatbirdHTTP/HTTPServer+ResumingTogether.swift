extension HTTPServer {
    /// Runs `body`, which answers parked requests (``HTTPResponder/send(_:)``, e.g. the strict
    /// answers one journal commit releases), and wakes each worker thread once when it returns
    /// instead of once per answer (``WorkerLoop``). Answers given inside `body` leave after it
    /// returns, so keep it short. Any thread; nested calls wake when the outermost returns.
    public static func resumingTogether(_ body: () -> Void) {
        WorkerLoop.wakingOnce(body)
    }
}
