extension HTTPAnswer {
    /// This answer with `Connection: close` on its response, whenever that comes: how the server
    /// sends a refusal (an oversized body, a malformed request), after which it closes the
    /// connection. A response that already names `Connection` keeps its own.
    func closingConnection() -> HTTPAnswer {
        map { $0.closingConnection() }
    }
}

extension HTTPResponse {
    /// This response with `Connection: close` unless it names `Connection` already.
    func closingConnection() -> HTTPResponse {
        guard headers.first("Connection") == nil else { return self }
        var closing = self
        closing.headers.add(name: "Connection", value: "close")
        return closing
    }
}
