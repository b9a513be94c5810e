import Foundation

/// The JSON coding the client uses on the wire.
enum CatbirdJSON {
    /// `value` as compact JSON (JSONEncoder's defaults, as the Catbird 0.11 client).
    ///
    /// - Throws: `EncodingError` (only for values JSON cannot hold, such as a non-finite Double).
    static func encode(_ value: some Encodable) throws -> Data {
        try JSONEncoder().encode(value)
    }

    /// A decoder for the server's answers (the models read their own timestamps).
    static func decoder() -> JSONDecoder {
        JSONDecoder()
    }
}
