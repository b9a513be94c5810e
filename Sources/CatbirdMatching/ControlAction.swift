/// The body of `POST /catbird/api/mocks` (spec 1.1, Catbird 0.11 `CatbirdAction`).
///
/// JSON shapes, discriminated by `"type"` (keys in any order, unknown keys ignored):
/// - `{"type": "update", "pattern": RequestPattern, "response": ResponseMock}` → 201 Created;
///   the client's `add(mock)` sends this too;
/// - `{"type": "remove", "pattern": RequestPattern}` → 204 No Content;
/// - `{"type": "removeAll"}` → 204 No Content.
///
/// Any other `type` throws a `DecodingError` whose reason is `unknown action type "x"`. Turn any
/// decoding failure into the `reason` of a 400 answer with ``describe(_:)-(DecodingError)``.
public enum ControlAction: Codable, Sendable, Equatable {
    /// Add a mock, or replace in place the mock whose pattern equals `pattern` (spec 1.1).
    case update(RequestPattern, ResponseMock)
    /// Remove the mocks whose pattern equals the given one (no error when none does).
    case remove(RequestPattern)
    /// Remove all of the caller's mocks (scoped to the caller's tenant, spec 2).
    case removeAll

    /// The wire names of `type`.
    private enum ActionType: String {
        case update, remove, removeAll
    }

    private enum CodingKeys: String, CodingKey {
        case type, pattern, response
    }

    /// Decodes the shapes listed in the type's documentation.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let type = try container.decode(String.self, forKey: .type)
        switch ActionType(rawValue: type) {
        case .update:
            self = .update(
                try container.decode(RequestPattern.self, forKey: .pattern),
                try container.decode(ResponseMock.self, forKey: .response)
            )
        case .remove:
            self = .remove(try container.decode(RequestPattern.self, forKey: .pattern))
        case .removeAll:
            self = .removeAll
        case nil:
            throw DecodingError.readable(
                at: container.codingPath + [CodingKeys.type],
                "unknown action type \(CodingPathText.jsonQuoted(type)) (expected \"update\", \"remove\" or \"removeAll\")"
            )
        }
    }

    /// Encodes the same shapes (as the 0.11 client does); useful for journals and tests.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case let .update(pattern, response):
            try container.encode(ActionType.update.rawValue, forKey: .type)
            try container.encode(pattern, forKey: .pattern)
            try container.encode(response, forKey: .response)
        case let .remove(pattern):
            try container.encode(ActionType.remove.rawValue, forKey: .type)
            try container.encode(pattern, forKey: .pattern)
        case .removeAll:
            try container.encode(ActionType.removeAll.rawValue, forKey: .type)
        }
    }
}
