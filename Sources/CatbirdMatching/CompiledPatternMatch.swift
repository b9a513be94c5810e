import CatbirdSupport
import CatbirdWire
import Foundation

/// A ``PatternMatch`` compiled once, when its mock is added, and then matched against many requests.
///
/// Semantics (Catbird 0.11's, in our words in docs/matching.md#pattern-kinds):
/// - `.equal`: exact, case-sensitive `==` on the whole subject.
/// - `.regexp`: ICU (`NSRegularExpression`) **unanchored** search, **case-insensitive**; `^`/`$` in
///   the pattern anchor at the subject's ends. An empty expression matches every subject (ICU on Linux
///   refuses to compile `""`, but an empty search succeeds everywhere on Apple platforms).
/// - `.wildcard`: ``WildcardTranslator/regularExpression(fromWildcard:)`` (anchored `^…$`), matched
///   **case-insensitively**.
///
/// `NSRegularExpression` is `Sendable` in this toolchain's Foundation (it is immutable once created
/// and documented as safe to use from several threads), so no unchecked conformance is needed.
public struct CompiledPatternMatch: Sendable {
    /// The pattern as it was received.
    public let source: PatternMatch
    private let matcher: Matcher

    private enum Matcher: Sendable {
        case equal(String)
        case everything
        case expression(NSRegularExpression)
    }

    /// Compiles `source`. Throws ``PatternError/invalidRegularExpression(pattern:reason:)`` when a
    /// `.regexp` value, or the translation of a `.wildcard` value, is not a valid ICU expression.
    public init(_ source: PatternMatch) throws(PatternError) {
        self.source = source
        switch source.kind {
        case .equal:
            matcher = .equal(source.value)
        case .regexp:
            if source.value.isEmpty {
                matcher = .everything
            } else {
                matcher = .expression(try Self.compile(
                    source.value, pattern: source.value,
                    reason: "not a valid ICU regular expression"
                ))
            }
        case .wildcard:
            let expression = WildcardTranslator.regularExpression(fromWildcard: source.value)
            matcher = .expression(try Self.compile(
                expression, pattern: source.value,
                reason: "the wildcard translates to \(JSONText.string(expression)), which is not a valid ICU regular expression"
            ))
        }
    }

    /// Whether `subject` (a request-target or a header value) matches; see the type's documentation.
    public func matches(_ subject: String) -> Bool {
        switch matcher {
        case let .equal(value):
            return subject == value
        case .everything:
            return true
        case let .expression(expression):
            let whole = NSRange(location: 0, length: subject.utf16.count)
            return expression.rangeOfFirstMatch(in: subject, options: [], range: whole).location != NSNotFound
        }
    }

    private static func compile(
        _ expression: String, pattern: String, reason: String
    ) throws(PatternError) -> NSRegularExpression {
        do {
            return try NSRegularExpression(pattern: expression, options: [.caseInsensitive])
        } catch {
            throw PatternError.invalidRegularExpression(pattern: pattern, reason: reason)
        }
    }
}
