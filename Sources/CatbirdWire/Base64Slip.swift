import CatbirdSupport
import Foundation

/// Base64 that is one slip away from standard padded base64 (RFC 4648 §4), which a `body`
/// must be (tester finding T18A-F4): what JWT tools, URL-safe encoders and many JavaScript
/// helpers print. Its bytes are clear, but it is refused all the same (a mock body must be what
/// its author wrote, ``Foundation/Data/init(strictBase64:)``); the refusal says how to write it
/// rather than to encode the text again.
enum Base64Slip: Equatable {
    /// Standard base64 without its `=` padding (`aGVsbG8`): the padding to add, `=` or `==`.
    case unpadded(padding: String)
    /// base64url (RFC 4648 §5: `-` and `_` for `+` and `/`), padded or not (`aGVsbG8_`).
    case base64URL
    /// Standard base64 but for spaces or tabs (` aGk=`, `aG k=`: a shell template's or YAML
    /// indentation's); the first one's byte offset (tester finding tester44b-F4: told to
    /// encode the value again, which served the base64 characters).
    case whitespace(at: Int)
    /// Standard base64 with more `=` than its last group takes (`aGk==`, `aGk===`, `YQ===`:
    /// tester finding tester45a-F6, all but one extra `=` were told to encode the text).
    case extraPadding
    /// Two or more padded base64 values one after another (`aGk=aGk=`, two encoded chunks
    /// glued); `standard` encodes their bytes together.
    case concatenated(pieces: Int)

    /// Whether `standard` (standard padded base64) decodes to UTF-8 text without control
    /// characters but tab and line breaks: then `aGVsbG8` surely meant `hello`; a short word
    /// such as `ok` is also base64 without padding (of a byte that is no text), and may have
    /// been meant as text.
    static func decodesToText(_ standard: String) -> Bool {
        guard let bytes = Data(strictBase64: standard), let text = String(validating: bytes, as: UTF8.self) else { return false }
        return text.unicodeScalars.allSatisfy { scalar in
            !(scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)) || "\t\n\r".unicodeScalars.contains(scalar)
        }
    }

    /// The slip `text` holds and its standard padded form, or nil when `text` is not base64 of
    /// any such kind (then it is taken for text to encode).
    static func find(in text: String) -> (slip: Base64Slip, standard: String)? {
        if let space = text.utf8.firstIndex(where: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) {
            let squeezed = String(decoding: text.utf8.filter { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }, as: UTF8.self)
            let offset = text.utf8.distance(from: text.utf8.startIndex, to: space)
            guard !squeezed.isEmpty else { return nil }
            if Data(strictBase64: squeezed) != nil { return (.whitespace(at: offset), squeezed) }
            // Two pasted lines, `aGk= aGk=` (tester finding tester45a-F6): their bytes together.
            return concatenation(squeezed).map { (.whitespace(at: offset), $0.standard) }
        }
        if let glued = concatenation(text) { return glued }
        var urlSafe = false
        var letters = 0
        var padding = 0
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "="):
                padding += 1
                continue
            case UInt8(ascii: "-"), UInt8(ascii: "_"): urlSafe = true
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "/"):
                break
            default: return nil
            }
            guard padding == 0 else { return nil }  // a letter after "="
            letters += 1
        }
        // A last group of 1 letter is no base64; 2 and 3 letters take "==" and "=".
        guard letters > 0, letters % 4 != 1 else { return nil }
        let needed = (4 - letters % 4) % 4
        if padding > needed, !urlSafe {
            let standard = String(decoding: text.utf8.prefix(letters), as: UTF8.self) + String(repeating: "=", count: needed)
            return Data(strictBase64: standard) != nil ? (.extraPadding, standard) : nil
        }
        guard padding == 0 || padding == needed else { return nil }
        let letterText = text.utf8.prefix(letters)
        guard !urlSafe || !letterText.contains(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "/") }) else { return nil }
        let standardLetters = String(decoding: letterText.map { byte in
            switch byte {
            case UInt8(ascii: "-"): UInt8(ascii: "+")
            case UInt8(ascii: "_"): UInt8(ascii: "/")
            default: byte
            }
        }, as: UTF8.self)
        let standard = standardLetters + String(repeating: "=", count: needed)
        guard Data(strictBase64: standard) != nil else { return nil }
        if urlSafe { return (.base64URL, standard) }
        guard padding == 0, needed > 0 else { return nil }
        return (.unpadded(padding: String(repeating: "=", count: needed)), standard)
    }

    /// `text` as padded standard base64 values one after another (a letter after an `=`),
    /// each valid, with the standard form of their bytes together; nil otherwise.
    private static func concatenation(_ text: String) -> (slip: Base64Slip, standard: String)? {
        var pieces: [Substring] = []
        var start = text.startIndex
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(after: index)
            if text[index] == "=", next < text.endIndex, text[next] != "=" {
                pieces.append(text[start..<next])
                start = next
            }
            index = next
        }
        guard !pieces.isEmpty else { return nil }
        pieces.append(text[start...])
        var bytes = Data()
        for piece in pieces {
            guard let decoded = Data(strictBase64: String(piece)) else { return nil }
            bytes.append(decoded)
        }
        return (.concatenated(pieces: pieces.count), bytes.base64EncodedString())
    }
}
