import Foundation

extension CompiledRequestPattern {
    /// Whether a request read back as UTF-8 bytes (a journal row as SQLite holds it) matches:
    /// the answer of ``evaluate(method:target:headerValue:body:until:)`` for the `String`s those
    /// bytes decode to, with no `String` made where the bytes decide
    /// (``CompiledPatternMatch/evaluate(utf8:until:)``).
    /// - Parameters:
    ///   - method: the request method's bytes; nil when the caller has compared it already,
    ///     byte for byte (SQL's `method = ?`).
    ///   - target: the request-target's bytes.
    ///   - headerValue: called with a header name as written in the pattern and a function that
    ///     matches that header's pattern against a value's bytes; returns what the function
    ///     answered for the request's **first** value of that header (the name looked up
    ///     case-insensitively by the caller), or nil when the request has no such header.
    ///   - body: the request body's bytes; called only when the pattern has a body pattern
    ///     and everything else matched.
    ///   - deadline: when a regular expression still running is stopped (``MatchOutcome/outOfTime``).
    public func evaluate(
        method: UnsafeBufferPointer<UInt8>?, target: UnsafeBufferPointer<UInt8>,
        headerValue: (String, (UnsafeBufferPointer<UInt8>) -> MatchOutcome) -> MatchOutcome?,
        body: () -> [UInt8], until deadline: ContinuousClock.Instant
    ) -> MatchOutcome {
        if let method, !UTF8Text.bytes(method, equal: source.method.rawValue) { return .notMatched }
        let urlOutcome = url.evaluate(utf8: target, until: deadline)
        guard urlOutcome == .matched else { return urlOutcome }
        for header in headers {
            let outcome = headerValue(header.name) { value in header.pattern.evaluate(utf8: value, until: deadline) }
            guard let outcome else { return .notMatched }
            guard outcome == .matched else { return outcome }
        }
        guard let bodyPattern = self.body else { return .matched }
        return bodyPattern.evaluate(body(), until: deadline)
    }
}

/// Comparing UTF-8 bytes with a `String` as `==` compares the `String`s they decode to.
enum UTF8Text {
    /// Whether `bytes`, decoded as `String(decoding:as:)` decodes them, equals `text` (Swift's
    /// `==`: canonical equivalence). The same bytes are equal; different bytes are not when both
    /// sides are ASCII; anything else is decided by decoding.
    static func bytes(_ bytes: UnsafeBufferPointer<UInt8>, equal text: String) -> Bool {
        let same = text.utf8.withContiguousStorageIfAvailable { utf8 in
            utf8.count == bytes.count && (bytes.isEmpty || memcmp(utf8.baseAddress!, bytes.baseAddress!, bytes.count) == 0)
        } ?? bytes.elementsEqual(text.utf8)
        if same { return true }
        if isASCII(bytes) && text.utf8.allSatisfy({ $0 < 0x80 }) { return false }
        return String(decoding: bytes, as: UTF8.self) == text
    }

    /// Whether every byte is below 0x80.
    static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        !bytes.contains { $0 >= 0x80 }
    }
}
