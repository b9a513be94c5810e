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
        let data = Data(request.body)
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            if let reason = wholeNumberMismatch(error, in: data) { throw .badRequest(reason) }
            throw .badRequest(describe(error))
        }
    }

    /// Foundation on Linux reports a number that does not fit an integer field (`200.5`,
    /// `1e30`) as "not valid JSON" with no coding path. When the JSON is in fact valid, this
    /// names the offending numbers instead.
    private static func wholeNumberMismatch(_ error: any Error, in data: Data) -> String? {
        guard case let DecodingError.dataCorrupted(context) = error, context.codingPath.isEmpty,
              let root = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else { return nil }
        var found: [String] = []
        func visit(_ value: Any, _ path: String) {
            if let object = value as? [String: Any] {
                for key in object.keys.sorted() { visit(object[key]!, path.isEmpty ? key : "\(path).\(key)") }
            } else if let array = value as? [Any] {
                for (index, element) in array.enumerated() { visit(element, "\(path)[\(index)]") }
            } else if let number = value as? NSNumber, !(value is Bool) {
                let double = number.doubleValue
                if double.rounded() != double || abs(double) > 9.2e18 { found.append("'\(path)' (\(number))") }
            }
        }
        visit(root, "")
        guard !found.isEmpty else { return nil }
        return "\(found.joined(separator: ", ")) must be a whole number"
    }

    /// `application/json`, `application/json; charset=…` or a `+json` media type.
    static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let mediaType = (contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
            .trimmingCharacters(in: .whitespaces).lowercased()
        return mediaType == "application/json" || (mediaType.hasPrefix("application/") && mediaType.hasSuffix("+json"))
    }
}
