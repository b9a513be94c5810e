import Foundation

/// A value usable wherever a ``PatternMatch`` is expected, so that
/// `RequestPattern(method: .GET, url: "/login")` and
/// `RequestPattern(method: .GET, url: URL(string: "/login")!)` both read naturally.
public protocol PatternRepresentable {
    /// The pattern this value stands for.
    var pattern: PatternMatch { get }
}

extension PatternMatch: PatternRepresentable {
    /// The pattern itself.
    public var pattern: PatternMatch { self }
}

extension String: PatternRepresentable {
    /// `.equal(self)`: the string matched exactly.
    public var pattern: PatternMatch { .equal(self) }
}

extension URL: PatternRepresentable {
    /// `.equal(absoluteString)`: the URL's text matched exactly. A relative URL such as
    /// `URL(string: "/login")` gives `/login`.
    public var pattern: PatternMatch { .equal(absoluteString) }
}
