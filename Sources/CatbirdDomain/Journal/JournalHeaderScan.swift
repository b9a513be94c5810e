import CatbirdSupport

/// Finds a header's first value in a journal row's `request_headers` JSON without decoding it
/// (``RequestMatchFunction`` runs it on every row a header pattern is counted over): the bytes
/// ``JournalHeaders/firstValue(of:)`` would give, or ``Answer/undecided`` where only decoding
/// can say.
///
/// It decides the texts ``JSONText/object(_:)`` writes for ASCII headers: a JSON object of
/// printable-ASCII text with no escapes (no `\` anywhere, no byte outside U+0020…U+007E except
/// whitespace between tokens) whose values are strings or arrays of strings. Anything else —
/// an escape, a non-ASCII or control byte, another value type, malformed JSON, the name
/// spelled the same way twice — is undecided. Where several keys equal the name ignoring case
/// and none is spelled as it is (``JSONText/object(_:)`` never writes that: it groups names
/// ignoring case), the first one counts, as the SQL lookup before this did; ``JournalHeaders``
/// would pick one in no defined order.
enum JournalHeaderScan {
    enum Answer: Equatable {
        /// The first value's bytes, from the offset to the end offset (exclusive) in the text.
        case value(Range<Int>)
        /// The header is not there (or has an empty array of values).
        case absent
        case undecided
    }

    /// The first value of the header `name` (printable ASCII: the caller decides other names
    /// by decoding) in `json`: the key spelled as `name`, else the first key equal to it
    /// ignoring ASCII case.
    static func firstValue(of name: UnsafeBufferPointer<UInt8>, in json: UnsafeBufferPointer<UInt8>) -> Answer {
        var reader = Reader(json)
        reader.skipSpace()
        guard reader.take(UInt8(ascii: "{")) else { return .undecided }
        var exact: Answer?
        var folded: Answer?
        reader.skipSpace()
        if !reader.take(UInt8(ascii: "}")) {
            while true {
                guard let key = reader.string() else { return .undecided }
                reader.skipSpace()
                guard reader.take(UInt8(ascii: ":")) else { return .undecided }
                reader.skipSpace()
                guard let value = reader.firstOfValue() else { return .undecided }
                let answer = value.map(Answer.value) ?? .absent
                if json.elementsEqual(name, in: key) {
                    if exact != nil { return .undecided }
                    exact = answer
                } else if folded == nil, json.equalsIgnoringASCIICase(name, in: key) {
                    folded = answer
                }
                reader.skipSpace()
                if reader.take(UInt8(ascii: "}")) { break }
                guard reader.take(UInt8(ascii: ",")) else { return .undecided }
                reader.skipSpace()
            }
        }
        reader.skipSpace()
        guard reader.atEnd else { return .undecided }
        return exact ?? folded ?? .absent
    }

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        var atEnd: Bool { index == bytes.count }

        mutating func skipSpace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        /// A string without escapes, of printable ASCII: the range of its contents.
        mutating func string() -> Range<Int>? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            let start = index
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    index += 1
                    return start..<(index - 1)
                }
                guard byte >= 0x20, byte <= 0x7E, byte != UInt8(ascii: "\\") else { return nil }
                index += 1
            }
            return nil
        }

        /// A string (its contents) or an array of strings (its first one; nil inside for an
        /// empty array); nil outside for anything else.
        mutating func firstOfValue() -> Range<Int>?? {
            if index < bytes.count, bytes[index] == UInt8(ascii: "\"") { return string().map { .some($0) } }
            guard take(UInt8(ascii: "[")) else { return nil }
            skipSpace()
            if take(UInt8(ascii: "]")) { return .some(nil) }
            var first: Range<Int>?
            while true {
                guard let member = string() else { return nil }
                if first == nil { first = member }
                skipSpace()
                if take(UInt8(ascii: "]")) { return .some(first) }
                guard take(UInt8(ascii: ",")) else { return nil }
                skipSpace()
            }
        }
    }
}

private extension UnsafeBufferPointer<UInt8> {
    /// Whether the bytes in `range` are `other`'s bytes.
    func elementsEqual(_ other: UnsafeBufferPointer<UInt8>, in range: Range<Int>) -> Bool {
        range.count == other.count && zip(self[range], other).allSatisfy { $0 == $1 }
    }

    /// Whether the bytes in `range` equal `other`'s with ASCII capitals folded.
    func equalsIgnoringASCIICase(_ other: UnsafeBufferPointer<UInt8>, in range: Range<Int>) -> Bool {
        range.count == other.count && zip(self[range], other).allSatisfy { ASCIICase.lower($0) == ASCIICase.lower($1) }
    }
}
