import Foundation

extension RequestPattern {
    /// An HTTP request method, compared exactly (case-sensitive) by the server.
    ///
    /// Written as a plain JSON string (`"GET"`: the standard library's `Codable` for a
    /// `RawRepresentable` with a `String` raw value). Any method token works: `.GET` or
    /// `RequestPattern.HTTPMethod("PROPFIND")` or the string literal `"PROPFIND"`. The server
    /// rejects a method that is not an HTTP token (empty, or with spaces) with a 400 when a mock
    /// is added. Nested in ``RequestPattern`` only, as in Catbird 0.11: no top-level
    /// `HTTPMethod`, which would clash with the many networking modules that export one.
    public struct HTTPMethod: RawRepresentable, Hashable, Codable, Sendable, ExpressibleByStringLiteral,
        LosslessStringConvertible
    {
        /// The method as sent on the request line, such as `GET`.
        public let rawValue: String

        /// The method `rawValue`, as is.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// The method named by the string literal, as is.
        public init(stringLiteral value: String) {
            self.init(rawValue: value)
        }

        /// The method `description`, as is: never fails (non-failable, as in Catbird 0.11).
        public init(_ description: String) {
            self.init(rawValue: description)
        }

        /// The method as sent on the request line.
        public var description: String { rawValue }

        /// `GET`.
        public static let GET: HTTPMethod = "GET"
        /// `POST`.
        public static let POST: HTTPMethod = "POST"
        /// `PUT`.
        public static let PUT: HTTPMethod = "PUT"
        /// `PATCH`.
        public static let PATCH: HTTPMethod = "PATCH"
        /// `DELETE`.
        public static let DELETE: HTTPMethod = "DELETE"
    }
}
