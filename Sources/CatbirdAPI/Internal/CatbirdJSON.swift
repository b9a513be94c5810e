import Foundation

/// The JSON coding the client uses on the wire.
enum CatbirdJSON {
    /// `value` as compact JSON (JSONEncoder's defaults, as the Catbird 0.11 client).
    ///
    /// - Throws: `EncodingError` (only for values JSON cannot hold, such as a non-finite Double).
    static func encode(_ value: some Encodable) throws -> Data {
        try JSONEncoder().encode(value)
    }

    /// `value` as compact JSON, for values that always encode (strings, integers, bytes:
    /// JSONEncoder fails only for non-finite floating-point numbers). A failure is a
    /// programming error and stops the process.
    static func encodeKnownEncodable(_ value: some Encodable) -> Data {
        do {
            return try encode(value)
        } catch {
            preconditionFailure("could not encode \(value): \(error)")
        }
    }
}
