import Foundation

/// A change to the caller's mocks, sent with ``Catbird/send(_:)`` as
/// `POST /catbird/api/mocks`.
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

    /// Adds (or replaces) a mock: `.update(mock.pattern, mock.response)`.
    public static func add(_ mock: any CatbirdMockConvertible) -> CatbirdAction {
        .update(mock.pattern, mock.response)
    }

    /// Removes a mock: `.remove(mock.pattern)`.
    public static func remove(_ mock: any CatbirdMockConvertible) -> CatbirdAction {
        .remove(mock.pattern)
    }

    private enum CodingKeys: String, CodingKey {
        case type, pattern, response
    }

    /// The `type` values on the wire.
    private enum Kind: String, Codable {
        case update, remove, removeAll
    }

    /// Reads the wire shape.
    ///
    /// - Throws: `DecodingError` for an unknown `type` or a missing `pattern`/`response`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(Kind.self, forKey: .type) {
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
