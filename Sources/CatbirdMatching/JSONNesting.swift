/// The one nesting limit of JSON read (docs/matching.md#json-nesting): a `json` pattern's
/// value, a request body read by `json` or `jsonPath`, a `jsonPath` reference read by SQLite,
/// and a control call's JSON body (`JSONBody.decode` in CatbirdServer, which `JSONDecoder`
/// reads) all stop at ``limit`` nested arrays and objects, and say so in one wording
/// (``reason``).
///
/// Why 512: `JSONDecoder` (swift-foundation) reads at most 512 levels, and the `json` reading
/// asks it for text ``JSONBodyParser`` leaves to it; SQLite 3.40 reads 2,000 and Jackson
/// (WireMock) 1,000, so a lower limit here is the one all three readings can keep. Before
/// this limit was stated (try11 T11-F4) a body 514 levels deep matched no `jsonPath` although
/// its field was there (the field's value, 513 deep, failed to read), its 404 said only "body
/// differs", and a `json` pattern 600 levels deep was refused as "must be JSON text".
public enum JSONNesting {
    /// Arrays and objects nested in one another that are read as JSON: 512.
    public static let limit = 512

    /// Whether `bytes`, read as JSON text, nests arrays and objects deeper than ``limit``:
    /// brackets and braces outside strings (a string runs from a `"` to the next `"` not
    /// escaped by `\`). Stops at the first bracket past the limit, so a body of a million
    /// levels costs what its first 513 levels cost (the whole depth is not counted: a debug
    /// build took 290 ms to count 2 MB of brackets on a 404). Text that is not JSON is judged by
    /// its brackets too, which callers ask only of text that failed to read.
    static func tooDeep(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var depth = 0
        var inString = false
        var escaped = false
        for byte in bytes {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                if depth > limit { return true }
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth = max(depth - 1, 0)
            default: break
            }
        }
        return false
    }

    /// ``tooDeep(_:)`` of an array's bytes.
    public static func tooDeep(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { tooDeep($0) }
    }

    /// `nests arrays and objects more than 512 levels deep; JSON is read to at most 512
    /// levels (docs/matching.md#json-nesting)`, after "the body ", "'pattern.body.value' " or "the
    /// JSON body ".
    public static let reason =
        "nests arrays and objects more than \(limit) levels deep; JSON is read to at most \(limit) levels (docs/matching.md#json-nesting)"
}
