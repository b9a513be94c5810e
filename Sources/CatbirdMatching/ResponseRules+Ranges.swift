/// A whole-number field's documented range: the values accepted, and how a reason words them.
public struct DocumentedRange: Sendable {
    /// The values accepted.
    public let bounds: ClosedRange<Int>
    /// The range as a reason says it after "must be": `between 200 and 599`, `from 0 to 86400 seconds`.
    public let wording: String

    /// - Parameter worded: the wording, given the lower and upper bound.
    init(_ bounds: ClosedRange<Int>, worded: (_ lower: Int, _ upper: Int) -> String) {
        self.bounds = bounds
        wording = worded(bounds.lowerBound, bounds.upperBound)
    }
}

extension ResponseRules {
    /// A response's status: 200...599, `between 200 and 599` (a 1xx is an interim answer, and
    /// RFC 9110 section 15 has no class above 5). Checked by ``check(status:headers:bodyLength:source:)``.
    public static let statusRange = DocumentedRange(200...599) { "between \($0) and \($1)" }

    /// A mock's `delay`, in whole seconds: 0...86400 (one day), `from 0 to 86400 seconds`.
    /// Checked by ``checkDelay(_:)``.
    public static let delayRange = DocumentedRange(0...86_400) { "from \($0) to \($1) seconds" }

    /// The documented ranges by the JSON key of their field in a response (`status`,
    /// `delay`), for a reason about a number no 64-bit integer holds, which never reaches
    /// the checks above (the server's control-body decoding; tester finding T17-F3).
    public static let rangesByKey = ["status": statusRange, "delay": delayRange]

    /// Checks a mock's `delay` (seconds; nil for none).
    /// - Throws: ``Violation`` for a delay outside ``delayRange``.
    public static func checkDelay(_ delay: Int?) throws(Violation) {
        guard let delay, !delayRange.bounds.contains(delay) else { return }
        throw Violation(reason: "'response.delay' must be \(delayRange.wording), not \(delay)")
    }
}
