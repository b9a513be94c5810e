import CatbirdDomain
import CatbirdHTTP
import Foundation

/// JSON request and response bodies for the control and admin routes.
enum JSONBody {
    /// The Content-Type of every JSON answer.
    static let contentType = "application/json; charset=utf-8"

    static func quoted(_ text: String) -> String { JSONText.string(text) }

    /// A 200 (or `status`) answer with `value` encoded as JSON.
    static func response(_ value: some Encodable, status: Int = 200) -> HTTPResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            let data = try encoder.encode(value)
            return HTTPResponse(status: status, headers: ["Content-Type": contentType], body: Array(data))
        } catch {
            return APIError(status: 500, reason: "could not encode the answer: \(error)").response
        }
    }

    /// Decodes a control body after checking its Content-Type.
    /// - Throws: ``APIError`` 415 when the Content-Type is missing or not JSON; 400 with a
    ///   readable reason when the body does not decode.
    static func decode<T: Decodable>(_ type: T.Type, from request: HTTPRequest, describe: (any Error) -> String) throws(APIError) -> T {
        guard isJSON(request.headers.first("Content-Type")) else { throw .unsupportedMediaType }
        do {
            return try JSONDecoder().decode(T.self, from: Data(request.body))
        } catch {
            throw .badRequest(describe(error))
        }
    }

    /// `application/json`, `application/json; charset=…` or a `+json` media type.
    static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let mediaType = contentType.split(separator: ";", maxSplits: 1)[0]
            .trimmingCharacters(in: .whitespaces).lowercased()
        return mediaType == "application/json" || (mediaType.hasPrefix("application/") && mediaType.hasSuffix("+json"))
    }
}
