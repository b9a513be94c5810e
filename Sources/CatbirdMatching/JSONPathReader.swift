import CatbirdStorage
import CatbirdSupport
import CatbirdWire
import Foundation
import Synchronization

/// Reads one field of a JSON text with SQLite's JSON functions (`json_type` and the `->`
/// operator; <https://www.sqlite.org/json1.html>), so a `jsonPath` body pattern uses
/// SQLite's JSON path syntax (`$`, `.key`, `."key with dots"`, `[0]`, `[#-1]`) rather than a
/// path engine of our own.
///
/// The queries run on a few private in-memory connections (``connectionCount``), taken in
/// turn, each behind its own lock: a field read holds one for the time SQLite takes to parse
/// the body, and other readers use the others.
enum JSONPathReader {
    /// What the path finds in a JSON text.
    enum Field: Equatable {
        /// The text is not JSON.
        case notJSON
        /// The text is JSON without a field at the path.
        case absent
        /// The field's value, its strings and keys compared exactly (``ExactJSON``).
        case present(ExactJSON)
    }

    /// In-memory connections shared by every `jsonPath` pattern: 4.
    static let connectionCount = 4

    private static let connections: [SerialDatabase] = (0..<connectionCount).compactMap { _ in openConnection() }
    private static let turn = Atomic<Int>(0)

    /// Checks that SQLite accepts `path` as a JSON path.
    /// - Throws: ``PatternError/invalidBodyPattern(reason:)`` naming the path and SQLite's complaint.
    static func validate(path: String) throws(PatternError) {
        guard path.hasPrefix("$") else {
            throw .invalidBodyPattern(
                reason: "'pattern.body.value' \(JSONText.shortString(path)) is not a JSON path: it must start with '$' (such as \"$.user.id\")")
        }
        do {
            _ = try run { db in try db.query("SELECT json_type('{}', ?)", [.text(path)]) }
        } catch {
            // Both cut as echoed input is (docs/protocol.md#errors; tester finding tester36b-F2: a
            // 5,000-byte path, whole here and again in SQLite's `near '…'`, filled the reason's
            // 8,000 bytes and cut away what was wrong).
            let message = (error as? SQLiteError)?.message ?? "\(error)"
            throw .invalidBodyPattern(
                reason: "'pattern.body.value' \(JSONText.shortString(path)) is not a SQLite JSON path (\(JSONText.cutWithLength(message, maxBytes: 200)))")
        }
    }

    /// The field at `path` in the JSON text `json`.
    ///
    /// The field is read as JSON text with `->`, which keeps its JSON kind: `json_extract` would
    /// turn JSON `true` and `false` into the SQL integers 1 and 0, and `true` is not `1`
    /// (docs/matching.md#body-matchers).
    ///
    /// Request bodies are read by ``JSONPathDocument`` instead, which parses a body once for all
    /// its paths; this is its reference (`JSONPathDocumentDifferentialTests`).
    static func field(at path: String, in json: String) -> Field {
        guard let text = text(at: path, in: json) else { return .notJSON }
        guard let text, let value = JSONBodyParser.value(of: Array(text.utf8)) else { return .absent }
        return .present(value)
    }

    /// The field at `path` as SQLite gives it: nil when SQLite reports an error (the text is not
    /// JSON, or a path error the lookup reached); `.some(nil)` when there is no field there;
    /// otherwise the field's JSON text from `->`. Text nested deeper than ``JSONNesting/limit``
    /// is not JSON (an error), as for the `json` kind, though SQLite 3.40 reads 2,000 levels.
    static func text(at path: String, in json: String) -> String?? {
        guard !JSONNesting.tooDeep(Array(json.utf8)) else { return nil }
        do {
            let row = try run { db in
                try db.query("SELECT json_type(?1, ?2), ?1 -> ?2", [.text(json), .text(path)]).first
            }
            guard let row, !row[0].isNull else { return .some(nil) }
            return .some(row[1].stringValue)
        } catch {
            return nil
        }
    }

    /// Runs `body` on the next connection in turn.
    /// - Throws: `SQLiteError` from `body`, or when no connection could be opened.
    private static func run<T: Sendable>(_ body: (Database) throws -> T) throws -> T {
        guard !connections.isEmpty else { throw SQLiteError(code: 7, message: "no in-memory SQLite connection could be opened") }
        let turn = UInt(bitPattern: turn.wrappingAdd(1, ordering: .relaxed).oldValue)
        return try connections[Int(turn % UInt(connections.count))].use(body)
    }

    private static func openConnection() -> SerialDatabase? {
        guard let database = try? Database(path: ":memory:") else { return nil }
        return SerialDatabase(database)
    }
}
