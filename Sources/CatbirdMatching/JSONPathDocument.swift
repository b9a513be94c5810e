import CatbirdSupport
import CatbirdWire

/// A request body parsed once, as SQLite 3.40's JSON functions parse it, so that every
/// `jsonPath` pattern of the request looks its path up in the parsed body instead of having
/// SQLite parse the whole body again for each path (try10b F9: 2,000 mocks on 2,000 paths cost
/// a 2 MB body 18 s of CPU). Lookups give what ``JSONPathReader/field(at:in:)`` (`json_type`
/// and `->` on the body's text) gives, byte for byte; `JSONPathDocumentDifferentialTests`
/// compares the two on generated bodies and paths.
///
/// The rules are those of SQLite 3.40.1's `json.c` (the Debian 12 library the server links):
/// - except for two things, where the `json` kind's reading is followed instead (try10b F6, so
///   that `json` and `jsonPath`, and count and find, agree on what a JSON body is): a UTF-8
///   byte-order mark before the text is skipped (SQLite: not JSON), and a zero byte is not the
///   end of the text but a byte that is not JSON (SQLite reads bound text up to its first zero
///   byte, so `{"a":1}` and a NUL was JSON to it); and a number a 64-bit float cannot hold
///   (`1e400`, `1e-400`) or a lone surrogate escape (`"\ud800"`) is not JSON, as the `json`
///   kind says (tester finding tester28a-F1: such a body was JSON to SQLite, and a `jsonPath`
///   whose field held one said "the body has no such field", even `$`);
/// - RFC 8259 grammar, whitespace being space, tab, LF and CR; strings with any bytes but control characters, and the escapes `\" \\ \/ \b \f
///   \n \r \t \uXXXX` (a lone surrogate escape is not, above);
/// - a path's steps are read by ``JSONPathStep`` (the grammar ``JSONPathSyntax`` checks, up to
///   the path's first zero byte); a key is compared with the member name's bytes as written
///   in the body, escapes not decoded, and the first member of that name is taken;
/// - a step that is not one of those is an error (SQLite's "JSON path error"), but only when
///   the lookup reaches it: `.key` on a value that is not an object, `[…]` on one that is not
///   an array, and a missing member or element end the lookup as absent first;
/// - the field's value is its JSON text as `->` gives it (the body's tokens, no whitespace)
///   read by ``JSONBodyParser``.
///
/// Nesting: at most ``JSONNesting/limit`` (512) nested arrays or objects, the `json` kind's
/// limit, where SQLite 3.40 reads 2,000 (try11 T11-F4: a body 514 levels deep had its fields
/// found but their values not read; docs/matching.md#json-nesting).
///
/// One exception: an object member name that is an array ending with a string
/// (`{["a"]:1}`) makes SQLite 3.40 read memory past its parse (a crash, or `false`/`null`
/// out of nowhere); here such a body is not JSON, as RFC 8259 says.
///
/// Cost: one pass over the body to parse it (12 bytes of nodes per JSON value); then a lookup
/// costs its path's length, a member name found through a hash of the object's names (made
/// the first time the object is searched) and an element through a table of the array's
/// elements, and a field's value is made once per node whatever the path that finds it.
struct JSONPathDocument {
    /// One JSON value of the body, in document order (SQLite's `JsonNode`): an array or object
    /// is followed by its `size` nodes (an object's as name, value, name, value …).
    private struct Node {
        var kind: Kind
        /// Scalars: the length of the token; arrays and objects: the number of nodes inside.
        var size: UInt32
        /// Scalars: the token's offset in the body.
        var start: UInt32
    }

    private enum Kind: UInt8 {
        case null, `true`, `false`, integer, real, string, array, object
    }

    /// What a path finds (``JSONPathReader/Field`` before the value is read).
    enum Lookup: Equatable {
        /// The path has a step SQLite rejects, reached by the lookup.
        case pathError
        /// No field at the path.
        case absent
        /// The node of the field.
        case node(Int)
    }

    /// Nested arrays and objects read: ``JSONNesting/limit`` (SQLite's `JSON_MAX_DEPTH` is 2,000).
    static let maxDepth = JSONNesting.limit
    /// Arrays and objects with more entries than this get a table or hash the first time they
    /// are searched; smaller ones are walked as SQLite walks them.
    private static let walkedEntries: UInt32 = 8

    private let bytes: [UInt8]
    private let nodes: [Node]
    private var members: [Int: [ArraySlice<UInt8>: Int]] = [:]
    private var elements: [Int: [Int]] = [:]
    private var values: [Int: ExactJSON?] = [:]

    /// Parses `body`; nil when SQLite 3.40 would say "malformed JSON" (or for the exception
    /// above).
    init?(_ body: [UInt8]) {
        guard body.count <= Int(UInt32.max), let nodes = Self.parse(body, end: body.count) else { return nil }
        self.bytes = body
        self.nodes = nodes
    }

    /// The bytes of JSON text read so far for field values (``field(at:allowance:)``).
    private(set) var valueBytes = 0

    /// What `path` finds, as ``JSONPathReader/field(at:in:)`` says it: `.notJSON` for a path
    /// error reached (SQLite reports it as an error of the query, as for malformed JSON).
    /// nil when the field's value is not read yet and ``valueBytes`` is already `allowance` or
    /// more.
    mutating func field(at path: String, allowance: Int = .max) -> JSONPathReader.Field? {
        switch lookup(path) {
        case .pathError: return .notJSON
        case .absent: return .absent
        case let .node(index):
            if let value = values[index] { return value.map { .present($0) } ?? .absent }
            guard valueBytes < allowance else { return nil }
            return value(at: index).map { .present($0) } ?? .absent
        }
    }

    // MARK: - Lookup (SQLite's jsonLookup / jsonLookupStep)

    /// The node `path` finds, its steps read by ``JSONPathStep`` (the grammar
    /// ``JSONPathSyntax`` checks), in SQLite's order: `.` on a value that is not an object, `[…]`
    /// on one that is not an array, `[#-n]` past an array's start, and a missing member or
    /// element end the lookup as absent before a malformed step is reported.
    mutating func lookup(_ path: String) -> Lookup {
        let path = Array(path.utf8)
        guard var offset = JSONPathStep.firstStep(in: path) else { return .pathError }
        var root = 0
        while let step = JSONPathStep(in: path, at: offset) {
            switch step.selector {
            case nil:
                return .pathError
            case let .member(name):
                guard nodes[root].kind == .object else { return .absent }
                guard step.problem == nil else { return .pathError }
                guard let value = member(of: root, named: path[name]) else { return .absent }
                root = value
            case let .element(index):
                guard nodes[root].kind == .array else { return .absent }
                guard let element = element(of: root, at: Int(index)) else { return .absent }
                root = element
            case let .fromEnd(back):
                guard nodes[root].kind == .array else { return .absent }
                let count = UInt32(truncatingIfNeeded: elementCount(of: root))
                guard back <= count else { return .absent }
                guard step.problem == nil else { return .pathError }
                guard let element = element(of: root, at: Int(count - back)) else { return .absent }
                root = element
            }
            offset = step.next
        }
        return .node(root)
    }

    /// The number of nodes from `index` to the next value at its level (`jsonNodeSize`).
    private func span(_ index: Int) -> Int {
        nodes[index].kind == .array || nodes[index].kind == .object ? Int(nodes[index].size) + 1 : 1
    }

    /// The value node of `object`'s first member named `name` (the name's bytes as written).
    private mutating func member(of object: Int, named name: ArraySlice<UInt8>) -> Int? {
        if nodes[object].size > Self.walkedEntries {
            if members[object] == nil {
                var table: [ArraySlice<UInt8>: Int] = [:]
                forEachEntry(of: object) { label in table[labelName(label)] = table[labelName(label)] ?? label + 1 }
                members[object] = table
            }
            return members[object]?[name]
        }
        var found: Int?
        forEachEntry(of: object) { label in
            if found == nil && labelName(label).elementsEqual(name) { found = label + 1 }
        }
        return found
    }

    private func labelName(_ label: Int) -> ArraySlice<UInt8> {
        let start = Int(nodes[label].start)
        return bytes[(start + 1)..<(start + Int(nodes[label].size) - 1)]
    }

    /// Calls `body` with the first node of each entry of `container`, in document order: an
    /// array's elements, an object's member names (each followed by its value's node).
    private func forEachEntry(of container: Int, _ body: (Int) -> Void) {
        let isObject = nodes[container].kind == .object
        var j = 1
        while j <= Int(nodes[container].size) {
            body(container + j)
            j += isObject ? 1 + span(container + j + 1) : span(container + j)
        }
    }

    private mutating func elementCount(of array: Int) -> Int {
        elementTable(of: array)?.count ?? walkElements(of: array).count
    }

    /// `array`'s element at `index`, counted from 0.
    private mutating func element(of array: Int, at index: Int) -> Int? {
        let all = elementTable(of: array) ?? walkElements(of: array)
        return index < all.count ? all[index] : nil
    }

    private mutating func elementTable(of array: Int) -> [Int]? {
        guard nodes[array].size > Self.walkedEntries else { return nil }
        if let table = elements[array] { return table }
        let table = walkElements(of: array)
        elements[array] = table
        return table
    }

    private func walkElements(of array: Int) -> [Int] {
        var all: [Int] = []
        forEachEntry(of: array) { all.append($0) }
        return all
    }

    // MARK: - Values (SQLite's jsonRenderNode, then JSONBodyParser)

    /// The value of node `index`: its JSON text as `->` renders it, read by ``JSONBodyParser``;
    /// nil when that parser reads no value from it.
    private mutating func value(at index: Int) -> ExactJSON? {
        if let value = values[index] { return value }
        var text: [UInt8] = []
        render(index, into: &text)
        valueBytes += text.count
        let value = JSONBodyParser.value(of: text)
        values[index] = .some(value)
        return value
    }

    /// Appends node `index`'s JSON text with no whitespace: tokens as written in the body.
    func render(_ index: Int, into text: inout [UInt8]) {
        let node = nodes[index]
        switch node.kind {
        case .null: text.append(contentsOf: "null".utf8)
        case .true: text.append(contentsOf: "true".utf8)
        case .false: text.append(contentsOf: "false".utf8)
        case .integer, .real, .string:
            text.append(contentsOf: bytes[Int(node.start)..<Int(node.start + node.size)])
        case .array, .object:
            let isObject = node.kind == .object
            text.append(isObject ? UInt8(ascii: "{") : UInt8(ascii: "["))
            var first = true
            forEachEntry(of: index) { entry in
                if !first { text.append(UInt8(ascii: ",")) }
                first = false
                render(entry, into: &text)
                if isObject {
                    text.append(UInt8(ascii: ":"))
                    render(entry + 1, into: &text)
                }
            }
            text.append(isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
        }
    }

    /// Whether `body` is refused for the exception in the type's documentation: its parse
    /// stops at an array or object where an object member's name should be. Up to there this
    /// parse and SQLite's read the same bytes the same way; past it SQLite's is undefined.
    static func stopsAtContainerName(_ body: [UInt8]) -> Bool {
        body.withUnsafeBufferPointer { buffer in
            var parser = Parser(text: buffer, end: body.count)
            return !parser.run() && parser.containerName
        }
    }

    // MARK: - Parse (SQLite's jsonParse / jsonParseValue, without recursion)

    /// The nodes of `body[..<end]`, or nil when it is not JSON by SQLite 3.40's rules.
    private static func parse(_ body: [UInt8], end: Int) -> [Node]? {
        body.withUnsafeBufferPointer { buffer -> [Node]? in
            var parser = Parser(text: buffer, end: end)
            return parser.run() ? parser.nodes : nil
        }
    }

    private struct Parser {
        let text: UnsafeBufferPointer<UInt8>
        let end: Int
        var nodes: [Node] = []
        var position = 0
        /// The open arrays and objects, innermost last.
        var open: [Int] = []
        /// Whether the parse stopped at an array or object in a member name's place.
        var containerName = false

        init(text: UnsafeBufferPointer<UInt8>, end: Int) {
            self.text = text
            self.end = end
        }

        func at(_ i: Int) -> UInt8 { i < end ? text[i] : 0 }

        mutating func skipWhitespace() {
            while true {
                switch at(position) {
                case 0x20, 0x09, 0x0A, 0x0D: position += 1
                default: return
                }
            }
        }

        /// Parses the whole text; false when it is not JSON.
        mutating func run() -> Bool {
            // A UTF-8 byte-order mark is skipped, as the `json` kind's reading skips it (RFC 8259 §8.1).
            if end >= 3 && text[0] == 0xEF && text[1] == 0xBB && text[2] == 0xBF { position = 3 }
            while true {
                // A value starts here.
                skipWhitespace()
                let c = at(position)
                if c == UInt8(ascii: "{") || c == UInt8(ascii: "[") {
                    open.append(nodes.count)
                    nodes.append(Node(kind: c == UInt8(ascii: "{") ? .object : .array, size: 0, start: 0))
                    position += 1
                    guard open.count <= JSONPathDocument.maxDepth else { return false }
                    skipWhitespace()
                    let close = c == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
                    if at(position) == close {
                        position += 1
                        open.removeLast()
                    } else {
                        if c == UInt8(ascii: "{") { guard memberName() else { return false } }
                        continue
                    }
                } else {
                    guard scalar() else { return false }
                }
                // A value ended: close what it ends, or go on to the next entry.
                while true {
                    guard let container = open.last else {
                        skipWhitespace()
                        return position == end
                    }
                    skipWhitespace()
                    let isObject = nodes[container].kind == .object
                    let c = at(position)
                    if c == UInt8(ascii: ",") {
                        position += 1
                        if isObject {
                            skipWhitespace()
                            guard memberName() else { return false }
                        }
                        break
                    }
                    guard c == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else { return false }
                    position += 1
                    nodes[container].size = UInt32(nodes.count - container - 1)
                    open.removeLast()
                }
            }
        }

        /// An object member's name and its `:`; false when there is none. SQLite reads a name
        /// as any value and then requires its last node to be a string, which lets an array
        /// ending in a string through (see the type's documentation): refused here.
        mutating func memberName() -> Bool {
            guard at(position) == UInt8(ascii: "\"") else {
                containerName = at(position) == UInt8(ascii: "[") || at(position) == UInt8(ascii: "{")
                return false
            }
            guard scalar() else { return false }
            skipWhitespace()
            guard at(position) == UInt8(ascii: ":") else { return false }
            position += 1
            return true
        }

        /// A string, number or literal at `position` (no whitespace before it).
        mutating func scalar() -> Bool {
            let i = position
            let c = at(i)
            switch c {
            case UInt8(ascii: "\""):
                var j = i + 1
                while true {
                    let b = at(j)
                    if b < 0x20 { return false }
                    if b == UInt8(ascii: "\\") {
                        j += 1
                        switch at(j) {
                        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                            UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                            break
                        case UInt8(ascii: "u") where (1...4).allSatisfy({ ASCIIByte.isHexDigit(at(j + $0)) }):
                            // A surrogate escape only as the first half of a pair (the json kind's rule).
                            let unit = hexValue(at: j + 1)
                            if (0xDC00...0xDFFF).contains(unit) { return false }
                            if (0xD800...0xDBFF).contains(unit) {
                                guard at(j + 5) == UInt8(ascii: "\\"), at(j + 6) == UInt8(ascii: "u"),
                                      (7...10).allSatisfy({ ASCIIByte.isHexDigit(at(j + $0)) }), (0xDC00...0xDFFF).contains(hexValue(at: j + 7))
                                else { return false }
                                j += 6  // on to the pair's second escape's `u`; its digits are read as any bytes
                            }
                        default:
                            return false
                        }
                    } else if b == UInt8(ascii: "\"") {
                        break
                    }
                    j += 1
                }
                return add(.string, from: i, to: j + 1)
            case UInt8(ascii: "n"): return literal("null", .null)
            case UInt8(ascii: "t"): return literal("true", .true)
            case UInt8(ascii: "f"): return literal("false", .false)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return number()
            default:
                return false
            }
        }

        /// The four hexadecimal digits at `start` (checked by the caller) as a number.
        func hexValue(at start: Int) -> UInt32 {
            var value: UInt32 = 0
            for k in 0..<4 {
                value = value << 4 | UInt32(ASCIIByte.hexValue(at(start + k)) ?? 0)
            }
            return value
        }

        static func isAlphanumeric(_ b: UInt8) -> Bool {
            isDigitByte(b) || (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z")) || (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z"))
        }

        static func isDigitByte(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }

        mutating func literal(_ word: StaticString, _ kind: Kind) -> Bool {
            let count = word.utf8CodeUnitCount
            for k in 0..<count where at(position + k) != word.utf8Start[k] { return false }
            guard !Self.isAlphanumeric(at(position + count)) else { return false }
            nodes.append(Node(kind: kind, size: 0, start: 0))
            position += count
            return true
        }

        /// SQLite 3.40's number rule, kept as it is written there.
        mutating func number() -> Bool {
            let i = position
            let c = at(i)
            var seenDecimalPoint = false
            var seenExponent = false
            if c <= UInt8(ascii: "0") {
                let j = c == UInt8(ascii: "-") ? i + 1 : i
                if at(j) == UInt8(ascii: "0") && Self.isDigitByte(at(j + 1)) { return false }
            }
            var j = i + 1
            while true {
                let b = at(j)
                if Self.isDigitByte(b) {
                    j += 1
                    continue
                }
                if b == UInt8(ascii: ".") {
                    if at(j - 1) == UInt8(ascii: "-") || seenDecimalPoint { return false }
                    seenDecimalPoint = true
                    j += 1
                    continue
                }
                if b == UInt8(ascii: "e") || b == UInt8(ascii: "E") {
                    if at(j - 1) < UInt8(ascii: "0") || seenExponent { return false }
                    seenDecimalPoint = true
                    seenExponent = true
                    var next = at(j + 1)
                    if next == UInt8(ascii: "+") || next == UInt8(ascii: "-") {
                        j += 1
                        next = at(j + 1)
                    }
                    if !Self.isDigitByte(next) { return false }
                    j += 1
                    continue
                }
                break
            }
            if at(j - 1) < UInt8(ascii: "0") { return false }
            // A number a 64-bit float cannot hold is not JSON, as for the json kind.
            if seenExponent || j - i > 15, JSONTextCheck.isOutOfRange(text[i..<j]) { return false }
            return add(seenDecimalPoint ? .real : .integer, from: i, to: j)
        }

        mutating func add(_ kind: Kind, from start: Int, to end: Int) -> Bool {
            nodes.append(Node(kind: kind, size: UInt32(end - start), start: UInt32(start)))
            position = end
            return true
        }
    }
}
