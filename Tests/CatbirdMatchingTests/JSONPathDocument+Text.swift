@testable import CatbirdMatching

extension JSONPathDocument {
    /// What the document finds at `path` in `body`, in the shape of SQLite's answer
    /// (``JSONPathReader/text(at:in:)``), for comparing the two: nil when `body` is not JSON or
    /// the lookup reaches a path error, `.some(nil)` when there is no field, else the field's
    /// JSON text as ``render(_:into:)`` gives it.
    static func text(at path: String, in body: [UInt8]) -> String?? {
        guard var document = JSONPathDocument(body) else { return nil }
        switch document.lookup(path) {
        case .pathError: return nil
        case .absent: return .some(nil)
        case let .node(index):
            var text: [UInt8] = []
            document.render(index, into: &text)
            return .some(String(decoding: text, as: UTF8.self))
        }
    }
}
