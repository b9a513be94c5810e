import Synchronization

extension JSONText {
    /// Remembers the last ``JSONText/appending(_:to:)`` result for one object text. A mock's
    /// journaled response headers are its own header JSON plus the fields added when sent
    /// (`Date`, `Content-Length`), the same for every hit within one second, so the hits of a
    /// second share one text instead of each writing it again.
    public final class AppendingMemo: Sendable {
        private let last = Mutex<(pairs: [(name: String, value: String)], text: String)?>(nil)

        public init() {}

        /// `JSONText.appending(pairs, to: object)`, reused when `pairs` equal the last call's.
        /// `object` must be the same text on every call to one memo (the memo's owner's).
        public func appending(_ pairs: [(name: String, value: String)], to object: String) -> String {
            let remembered = last.withLock { last -> String? in
                // Byte for byte, not `String ==` (canonical equivalence): an echoed field (CORS's
                // origin) may differ from the last in its bytes alone (tester38a-F3's kind).
                guard let last, last.pairs.elementsEqual(pairs, by: { $0.name.hasSameBytes(as: $1.name) && $0.value.hasSameBytes(as: $1.value) })
                else { return nil }
                return last.text
            }
            if let remembered { return remembered }
            let text = JSONText.appending(pairs, to: object)
            last.withLock { $0 = (pairs, text) }
            return text
        }
    }
}
