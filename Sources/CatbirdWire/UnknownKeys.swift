import Foundation

extension CodingUserInfoKey {
    /// Set to `true` in a decoder's `userInfo` to have the control bodies' wire types refuse
    /// a key they do not know (the server reading a control body, docs/protocol.md#errors);
    /// unset, unknown keys are ignored (the client reading the server's answers, which may
    /// gain fields).
    @_spi(Server) public static let catbirdRefusesUnknownKeys = CodingUserInfoKey(rawValue: "catbird.refusesUnknownKeys")!
}

/// Keys of a JSON object that its wire type does not know, found by
/// ``Swift/Decoder/refuseUnknownKeys(besides:)``: carried as the underlying error of a
/// `DecodingError.dataCorrupted`, so that the server can word the reason (with a suggestion
/// of the key meant; ``Swift/DecodingError/readableReason`` gives it without one).
@_spi(Server) public struct UnknownWireKeys: Error, Sendable {
    /// The path of the object holding them (`pattern.url`; `""` for the top level).
    public let path: String
    /// The unknown keys, sorted.
    public let unknown: [String]
    /// The keys the object may hold, in their documented order.
    public let known: [String]

    /// The unknown keys found under `error`, or nil when it is another failure.
    public init?(_ error: any Error) {
        guard case let DecodingError.dataCorrupted(context) = error,
            let keys = context.underlyingError as? UnknownWireKeys else { return nil }
        self = keys
    }

    init(path: String, unknown: [String], known: [String]) {
        self.path = path
        self.unknown = unknown
        self.known = known
    }

    /// `unknown key "metod" in 'pattern' (did you mean "method"?); the keys here are "method",
    /// "url", "headers" and "body"`; `in the JSON body` at the top level; `unknown keys "a"
    /// (did you mean …?) and "b" in …` for more than one, the first five named and then
    /// `and N more`; each key cut to 64 bytes (``CatbirdSupport/JSONText/shortString(_:maxBytes:)``).
    /// - Parameter suggestion: the known key an unknown one was probably meant to be, or nil.
    public func reason(suggesting suggestion: (String) -> String? = { _ in nil }) -> String {
        func meant(_ key: String) -> String {
            suggestion(key).map { " (did you mean \(CodingPathText.jsonQuoted($0))?)" } ?? ""
        }
        let shown = unknown.prefix(Self.namedUnknownKeys).map { CodingPathText.jsonQuoted($0) + meant($0) }
        let named = unknown.count == 1
            ? "unknown key \(CodingPathText.jsonQuoted(unknown[0])) \(place)\(meant(unknown[0]))"
            : "unknown keys \(Self.listed(shown, more: unknown.count - shown.count)) \(place)"
        return "\(named); the keys here are \(Self.listed(known.map(CodingPathText.jsonQuoted)))" + wrappingHint
    }

    /// The request pattern's keys (``RequestPattern``).
    static let patternKeys: Set<String> = ["method", "url", "headers", "body"]

    /// `; wrap the request pattern: {"pattern": {"method": …, "url": …}}` when every unknown key is
    /// a request pattern's and `pattern` is a known one: a count, find or wait body written as
    /// the pattern itself (tester finding tester30a-F3: the reason named the key but not the shape).
    private var wrappingHint: String {
        guard known.contains("pattern"), unknown.allSatisfy(Self.patternKeys.contains) else { return "" }
        return "; wrap the request pattern: {\"pattern\": {" + unknown.map { "\"\($0)\": …" }.joined(separator: ", ") + "}}"
    }

    /// `in 'pattern.url'`, or `in the JSON body` for the top level.
    public var place: String { path.isEmpty ? "in the JSON body" : "in '\(path)'" }

    /// How many unknown keys a reason names: 5, then `and N more` (200,000 unknown keys were
    /// all listed, a reason cut at 8,000 bytes that never said how many; tester finding T15A-F3).
    public static let namedUnknownKeys = 5

    /// `"a", "b" and "c"`; with `more` above 0, `"a", "b", "c" and 7 more`.
    static func listed(_ items: [String], more: Int = 0) -> String {
        if more > 0 { return items.joined(separator: ", ") + " and \(more) more" }
        return items.count > 1 ? items.dropLast().joined(separator: ", ") + " and " + items.last! : items.joined()
    }
}

/// Any key of a JSON object, to list them all.
private struct AnyWireKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension Decoder {
    /// Refuses keys of the object being decoded that are not among `Keys`, when the decoder
    /// asks for it (``Foundation/CodingUserInfoKey/catbirdRefusesUnknownKeys``); otherwise
    /// does nothing. Call it after taking the object's container, so that a value that is not
    /// an object is reported as such first.
    ///
    /// - Parameter listed: the keys the refusal lists as taken here (and suggests from), when
    ///   fewer than `Keys` apply to this object (an action's type takes only some of them);
    ///   nil: all of `Keys`.
    /// - Throws: `DecodingError.dataCorrupted` at this object's path whose underlying error is
    ///   ``UnknownWireKeys`` (every unknown key, sorted).
    @_spi(Server) public func refuseUnknownKeys<Keys: CodingKey & CaseIterable>(besides _: Keys.Type, listing listed: [String]? = nil) throws {
        let known = Keys.allCases.map(\.stringValue)
        let unknown = try keys(besides: known)
        guard !unknown.isEmpty else { return }
        let keys = UnknownWireKeys(path: CodingPathText.dotted(codingPath), unknown: unknown, known: listed ?? known)
        throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: keys.reason(), underlyingError: keys))
    }

    /// Whether the decoder asks for unknown keys to be refused
    /// (``Foundation/CodingUserInfoKey/catbirdRefusesUnknownKeys``).
    var refusesUnknownKeys: Bool { userInfo[.catbirdRefusesUnknownKeys] as? Bool == true }

    /// The keys of the object being decoded that are not among `names`, as written and sorted,
    /// when the decoder asks for unknown keys to be refused (``refusesUnknownKeys``); empty
    /// otherwise. What ``refuseUnknownKeys(besides:)`` refuses, and what a type refusing keys
    /// by its own rule reads (an action's keys of another action type).
    func keys(besides names: [String]) throws -> [String] {
        guard refusesUnknownKeys else { return [] }
        return try container(keyedBy: AnyWireKey.self).allKeys.map(\.stringValue).filter { !names.contains($0) }.sorted()
    }
}
