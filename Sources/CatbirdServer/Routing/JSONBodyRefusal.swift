/// Why ``JSONBody/read(_:from:shapeHint:describe:)`` refused a control body: the answer
/// (``error``), and whether the body was read as JSON at all, so that a route can look at a
/// refused body further only when it is JSON (``MockRoutes``: a WireMock stub or MockServer
/// expectation is one, ``ForeignStubShape``) and never parse what was not read.
enum JSONBodyRefusal: Error {
    /// Not read as JSON, nothing in it parsed: a Content-Type that is not JSON or a
    /// `Content-Encoding` (415), more than ``JSONBody/valueLimit`` values (read up to the
    /// limit only), text that is not JSON by RFC 8259, a value no decoder holds (a lone
    /// surrogate escape, a number past a 64-bit float), or text Foundation's parser does not
    /// read (nested past ``CatbirdMatching/JSONNesting/limit`` levels; all 400).
    case unreadable(APIError)
    /// Well-formed JSON of at most ``JSONBody/valueLimit`` values that does not decode as the
    /// route's type, or names a key twice in an object (400).
    case undecodable(APIError)

    /// The 4xx answered.
    var error: APIError {
        switch self {
        case let .unreadable(error), let .undecodable(error): error
        }
    }
}
