import CatbirdMatching
import CatbirdSupport
import Foundation

/// The status and header fields of a file mock, kept in a JSON file beside the body file:
/// `<body file>.catbird-response.json`, e.g. `api/books.json.catbird-response.json`:
///
/// ```json
/// {"status": 201, "headers": {"Content-Type": "application/json", "Set-Cookie": ["a=1", "b=2"]}}
/// ```
/// `status` defaults to 200 and `headers` to none; a header given as an array is sent once per
/// value. Record mode adds `"recordedMethod": "GET"` (the method of the request that was
/// recorded), which decides whether a later recording may replace the file and changes nothing
/// when serving. Format: `docs/files.md#sidecar`.
public struct FileMockSidecar: Sendable, Equatable {
    /// The keys a sidecar may hold; any other is refused (``init(json:path:)``).
    static let keys: Set<String> = ["status", "headers", "recordedMethod"]

    /// What is appended to the body file's name.
    public static let suffix = ".catbird-response.json"

    public var status: Int
    public var headers: [(name: String, value: String)]
    /// The method of the recorded request (record mode); nil in a hand-written sidecar.
    public var recordedMethod: String?

    public init(status: Int = 200, headers: [(name: String, value: String)] = [], recordedMethod: String? = nil) {
        self.status = status
        self.headers = headers
        self.recordedMethod = recordedMethod
    }

    public static func == (lhs: FileMockSidecar, rhs: FileMockSidecar) -> Bool {
        lhs.status == rhs.status && lhs.headers.elementsEqual(rhs.headers) { $0 == $1 } && lhs.recordedMethod == rhs.recordedMethod
    }

    /// Reads a sidecar's JSON, strictly by RFC 8259 as a control body is read
    /// (``CatbirdSupport/JSONTextCheck``, docs/protocol.md#errors): a trailing comma, a comment, a
    /// single-quoted string, a key given twice in one object, a lone surrogate escape or a number
    /// out of range is refused with the same reason a control body gets (the line, column and
    /// byte offset of a syntax error), not read leniently (tester finding T15B-F11: a trailing
    /// comma and a repeated key were accepted, a comment got "not a JSON object").
    /// - Throws: ``FileMockError/badSidecar(path:reason:)`` naming what is wrong.
    public init(json: Data, path: String) throws(FileMockError) {
        let findings = JSONTextCheck.scan(Array(json), as: .file)
        if let reason = findings.syntaxError ?? findings.unrepresentableValue ?? findings.duplicateKeyReason {
            throw .badSidecar(path: path, reason: reason)
        }
        guard let object = (try? JSONSerialization.jsonObject(with: JSONText.escapingByteOrderMarks(in: json), options: [.fragmentsAllowed])) as? [String: Any]
        else {
            // Foundation's reader fails past its own depth limit: "not a JSON object" was said of
            // a sidecar that is one (tester finding tester56a-F6).
            if JSONNesting.tooDeep(Array(json)) { throw .badSidecar(path: path, reason: "the sidecar \(JSONNesting.reason)") }
            throw .badSidecar(path: path, reason: "not a JSON object: a sidecar is one object, such as {\"status\": 201, \"headers\": {}}")
        }
        // A misspelled key ("satus") would otherwise change nothing, silently (tester finding try8a F10).
        let unknown = object.keys.filter { !Self.keys.contains($0) }.sorted()
        if !unknown.isEmpty {
            let named = unknown.map { "\"\($0)\"" }.joined(separator: ", ")
            throw .badSidecar(
                path: path, reason: "unknown key\(unknown.count == 1 ? "" : "s") \(named): the keys of a sidecar are \"status\", \"headers\" and \"recordedMethod\"")
        }
        status = 200
        headers = []
        recordedMethod = nil
        if let value = object["recordedMethod"] {
            guard let method = value as? String else { throw .badSidecar(path: path, reason: "'recordedMethod' must be a string") }
            recordedMethod = method
        }
        if let value = object["status"] {
            // The range is the mocks' (``ResponseRules``), checked with the body's size on lookup.
            guard let number = value as? Int else {
                throw .badSidecar(path: path, reason: "'status' must be a whole number \(ResponseRules.statusRange.wording)")
            }
            status = number
        }
        if let value = object["headers"] {
            guard let fields = value as? [String: Any] else { throw .badSidecar(path: path, reason: "headers must be an object") }
            for name in fields.keys.sorted() {
                if let single = fields[name] as? String {
                    headers.append((name: name, value: single))
                } else if let many = fields[name] as? [String] {
                    headers += many.map { (name: name, value: $0) }
                } else {
                    throw .badSidecar(path: path, reason: "header '\(name)' must be a string or an array of strings")
                }
            }
        }
    }

    /// The sidecar as pretty-printed JSON with sorted keys. Names are compared
    /// case-insensitively (ASCII, RFC 9110 section 5.1): the fields of one name are one key,
    /// spelled as the first of them was, and a repeated name's values are an array in the order
    /// received. Tester finding tester20a-F3: `set-cookie: session=old` then `Set-Cookie:
    /// session=new` were two keys, replayed in the keys' sorted order, so the replayed client
    /// kept the old cookie.
    public var json: Data {
        var values: [[UInt8]: (name: String, values: [String])] = [:]
        for field in headers {
            values[field.name.utf8.map(ASCIICase.lower), default: (field.name, [])].values.append(field.value)
        }
        var fields: [String: Any] = [:]
        for (name, many) in values.values { fields[name] = many.count == 1 ? many[0] : many }
        var object: [String: Any] = ["status": status, "headers": fields]
        if let recordedMethod { object["recordedMethod"] = recordedMethod }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return data + Data("\n".utf8)
    }
}
