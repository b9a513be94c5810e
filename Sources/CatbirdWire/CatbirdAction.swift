import Foundation

/// A change to the caller's mocks, sent as `POST /catbird/api/mocks` (the client's
/// `Catbird.send(_:)`); docs/protocol.md#control-actions.
///
/// Wire shape: `{"type": "update", "pattern": …, "response": …}`,
/// `{"type": "remove", "pattern": …}` or `{"type": "removeAll"}`.
public enum CatbirdAction: Equatable, Hashable, Codable, Sendable {
    /// Adds a mock answering `RequestPattern` with `ResponseMock`. A mock with an equal pattern
    /// is replaced in place (it keeps its position); otherwise the mock is appended.
    case update(RequestPattern, ResponseMock)

    /// Removes the mock with this pattern (no error when there is none).
    case remove(RequestPattern)

    /// Removes every mock of the caller's tenant (only the default tenant's without a parallel id).
    case removeAll

    /// The header carrying the parallel id (tenant) of a test shard: `X-Catbird-Parallel-Id`.
    public static let parallelIdHeaderField = "X-Catbird-Parallel-Id"

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case type, pattern, response
    }

    /// The `type` values on the wire.
    private enum Kind: String, Codable {
        case update, remove, removeAll
    }

    /// Reads the wire shape (keys in any order). When the decoder asks
    /// (``Foundation/CodingUserInfoKey/catbirdRefusesUnknownKeys``), a key the action's type
    /// does not use is refused (`pattern` on `removeAll`, say); otherwise it is ignored.
    ///
    /// - Throws: `DecodingError` for a missing `pattern`/`response`, for an unknown key or one
    ///   the type does not use (when refused: ``UnknownWireKeys``, `the key "pattern" is not
    ///   used by a "removeAll" action (its keys: "type")`), and for an unknown `type`
    ///   one whose reason (``Swift/DecodingError/readableReason``) is
    ///   `unknown action type "x" (expected "update", "remove" or "removeAll")`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        // An unknown key's refusal lists the keys of the action's type when it names one (tester
        // finding tester23b-F4: `{"type":"removeAll","x":1}` listed "type", "pattern" and
        // "response", which a removeAll refuses); else every action's.
        let named = (try? container.decodeIfPresent(String.self, forKey: .type)).flatMap(Kind.init(rawValue:))
        // The contract keeps 0.11's rule for this one (../shared/spec/catbird-protocol.md §1.1,
        // "removeAll: none (extra keys ignored)"; tester finding tester34a-F1: a suite's helper
        // sending one action shape with a `pattern` for every call got 400). The route says what
        // it ignored (``IgnoredActionKeys``).
        if named == .removeAll {
            self = .removeAll
            return
        }
        try decoder.refuseUnknownKeys(besides: CodingKeys.self, listing: named.map { Self.keys(usedBy: $0).map(\.stringValue) })
        let type = try container.decode(String.self, forKey: .type)
        guard let kind = Kind(rawValue: type) else {
            throw DecodingError.readable(
                at: container.codingPath + [CodingKeys.type],
                "unknown action type \(CodingPathText.jsonQuoted(type)) (expected \"update\", \"remove\" or \"removeAll\")"
            )
        }
        try Self.refuseKeysNotUsed(by: kind, decoder)
        switch kind {
        case .update:
            self = .update(
                try container.decode(RequestPattern.self, forKey: .pattern),
                try container.decode(ResponseMock.self, forKey: .response))
        case .remove:
            self = .remove(try container.decode(RequestPattern.self, forKey: .pattern))
        case .removeAll:
            self = .removeAll
        }
    }

    /// When unknown keys are refused: refuses `pattern` on `removeAll` and `response` on
    /// `remove` and `removeAll` (an action of the other type was meant, or a field was put
    /// in the wrong action).
    private static func refuseKeysNotUsed(by kind: Kind, _ decoder: any Decoder) throws {
        let names = keys(usedBy: kind).map(\.stringValue)
        // Unknown keys were refused before: what is left is one of CodingKeys.
        guard let extra = try decoder.keys(besides: names).first, let key = CodingKeys(rawValue: extra) else { return }
        throw DecodingError.readable(
            at: decoder.codingPath + [key],
            "the key \(CodingPathText.jsonQuoted(extra)) is not used by a \(CodingPathText.jsonQuoted(kind.rawValue)) action "
                + "(its keys: \(UnknownWireKeys.listed(names.map(CodingPathText.jsonQuoted))))")
    }

    /// The keys an action of type `kind` takes, in their documented order.
    private static func keys(usedBy kind: Kind) -> [CodingKeys] {
        switch kind {
        case .update: [.type, .pattern, .response]
        case .remove: [.type, .pattern]
        case .removeAll: [.type]
        }
    }

    /// Writes the wire shape.
    ///
    /// - Throws: whatever the encoder throws (a JSONEncoder never does for this type).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case let .update(pattern, response):
            try container.encode(Kind.update, forKey: .type)
            try container.encode(pattern, forKey: .pattern)
            try container.encode(response, forKey: .response)
        case let .remove(pattern):
            try container.encode(Kind.remove, forKey: .type)
            try container.encode(pattern, forKey: .pattern)
        case .removeAll:
            try container.encode(Kind.removeAll, forKey: .type)
        }
    }
}
