/// Finds a JSON object that names the same key twice, which Foundation's parsers accept
/// silently (the last value wins). Catbird refuses such bodies with a 400 naming the key
/// (docs/protocol.md#errors): a control body whose `"limit"` appears twice is a mistake, and
/// guessing which one was meant would hide it.
///
/// A small pass over the JSON text, not a parser: it follows strings (escapes decoded, so
/// `"a"` and `"\u0061"` are the same key), objects and arrays, and ignores everything else.
/// On malformed JSON it may stop early or report nothing; the decoder then reports the
/// malformation.
enum DuplicateKeys {
    /// The first duplicate key: the dotted path of the object holding it (`""` for the
    /// top-level object; array positions as `[N]`) and the key; nil when every object's keys
    /// are distinct.
    static func first(in bytes: [UInt8]) -> (path: String, key: String)? {
        var stack: [Frame] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                guard let (text, end) = string(in: bytes, from: index + 1) else { return nil }
                index = end
                if case .object(var keys, true, _) = stack.last {
                    guard keys.insert(text).inserted else { return (path(of: stack.dropLast()), text) }
                    stack[stack.count - 1] = .object(keys: keys, expectsKey: false, key: text)
                }
                continue
            case UInt8(ascii: "{"):
                stack.append(.object(keys: [], expectsKey: true, key: nil))
            case UInt8(ascii: "["):
                stack.append(.array(index: 0))
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if !stack.isEmpty { stack.removeLast() }
            case UInt8(ascii: ","):
                switch stack.last {
                case .object(let keys, _, let key): stack[stack.count - 1] = .object(keys: keys, expectsKey: true, key: key)
                case .array(let position): stack[stack.count - 1] = .array(index: position + 1)
                case nil: break
                }
            default:
                break
            }
            index += 1
        }
        return nil
    }

    /// One open container: an object's keys so far (and whether a key comes next, and the
    /// last key read), or an array's current position.
    private enum Frame {
        case object(keys: Set<String>, expectsKey: Bool, key: String?)
        case array(index: Int)
    }

    /// `pattern.headers`, `items[2].name`: the path of the containers in `frames`.
    private static func path(of frames: ArraySlice<Frame>) -> String {
        var text = ""
        for frame in frames {
            switch frame {
            case .object(_, _, let key?):
                if !text.isEmpty { text += "." }
                text += key
            case .array(let position):
                text += "[\(position)]"
            case .object(_, _, nil):
                break
            }
        }
        return text
    }

    /// The string whose text starts at `start` (after the opening quote), escapes decoded,
    /// and the index after its closing quote; nil when the text ends first.
    private static func string(in bytes: [UInt8], from start: Int) -> (String, Int)? {
        var decoded: [UInt8] = []
        var index = start
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") { return (String(decoding: decoded, as: UTF8.self), index + 1) }
            guard byte == UInt8(ascii: "\\") else {
                decoded.append(byte)
                index += 1
                continue
            }
            guard index + 1 < bytes.count else { return nil }
            let escaped = bytes[index + 1]
            index += 2
            switch escaped {
            case UInt8(ascii: "b"): decoded.append(0x08)
            case UInt8(ascii: "f"): decoded.append(0x0C)
            case UInt8(ascii: "n"): decoded.append(0x0A)
            case UInt8(ascii: "r"): decoded.append(0x0D)
            case UInt8(ascii: "t"): decoded.append(0x09)
            case UInt8(ascii: "u"):
                guard var unit = hex(bytes, at: index) else { return nil }
                index += 4
                // A high surrogate followed by `\uDC00`…`\uDFFF` is one scalar.
                if (0xD800...0xDBFF).contains(unit), index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                    bytes[index + 1] == UInt8(ascii: "u"), let low = hex(bytes, at: index + 2), (0xDC00...0xDFFF).contains(low)
                {
                    unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                    index += 6
                }
                decoded.append(contentsOf: Array(String(Unicode.Scalar(unit) ?? "\u{FFFD}").utf8))
            default: decoded.append(escaped)  // `"`, `\`, `/` stand for themselves
            }
        }
        return nil
    }

    /// The four hexadecimal digits at `index` as a number; nil when they are not.
    private static func hex(_ bytes: [UInt8], at index: Int) -> UInt32? {
        guard index + 4 <= bytes.count else { return nil }
        return UInt32(String(decoding: bytes[index..<(index + 4)], as: UTF8.self), radix: 16)
    }
}
