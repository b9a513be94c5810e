import Foundation

/// What a `removeAll` with keys besides `type` answers beside its 204: the contract keeps
/// Catbird 0.11's rule that a `removeAll` ignores every other key
/// (../shared/spec/catbird-protocol.md §1.1; tester finding tester34a-F1), so the action runs
/// (every mock of the tenant is removed, whatever a `pattern` key says) and the header
/// ``RemovedNothing/header`` names what was ignored (a 204 has no body).
enum IgnoredActionKeys {
    /// The warning for a `removeAll` action `body` (its JSON object), nil when it has no key
    /// but `type`. ASCII only: a key of other bytes, or longer than 40, is shown as `"…"`.
    static func warning(forRemoveAll body: [UInt8]) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else { return nil }
        let ignored = object.keys.filter { $0 != "type" }.sorted()
        guard !ignored.isEmpty else { return nil }
        let shown = ignored.prefix(5).map { key in
            key.utf8.count <= 40 && key.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") } ? "\"\(key)\"" : "\"…\""
        }
        let more = ignored.count > 5 ? " and \(ignored.count - 5) more" : ""
        return "removeAll takes no key but \"type\": ignored \(shown.joined(separator: ", "))\(more) (Catbird 0.11's rule); "
            + "every mock of this tenant was removed (a remove with a pattern removes one mock)"
    }
}
