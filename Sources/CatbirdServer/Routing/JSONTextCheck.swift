/// Finds what Foundation's JSON parsers either accept silently or refuse without saying where
/// or why, so that a control body gets a 400 naming the field (docs/protocol.md#errors):
///
/// - an object that names the same key twice (accepted, the last value wins): a control body
///   whose `"limit"` appears twice is a mistake, and guessing which one was meant would hide it;
/// - a lone surrogate escape (`"\ud800"` with no `\udc00`…`\udfff` after it, or a low one
///   alone), which encodes no character: the decoder calls the JSON malformed, or the field
///   the wrong type;
/// - a number out of the range of a 64-bit float: too large (`1e400`), or so small it would
///   round to 0 while it is not 0 (`1e-400`), which the decoder calls malformed, or the field
///   the wrong type.
///
/// It also measures how deep arrays and objects nest, for the reason given when Foundation's
/// parser gives up on deep nesting.
///
/// A small pass over the JSON text, not a parser: it follows strings (a key's escapes decoded,
/// so `"a"` and `"\u0061"` are the same key), objects, arrays and numbers, and ignores
/// everything else. On malformed JSON it may stop early or report nothing; the decoder then
/// reports the malformation.
enum JSONTextCheck {
    /// What was found first of each kind; paths are dotted (`pattern.body.equalTo`, array
    /// positions as `[N]`, `""` for the top level).
    struct Findings {
        /// The first duplicate key: the path of the object holding it, and the key.
        var duplicateKey: (path: String, key: String)?
        /// The first lone surrogate: the path of the string holding it, and the escape as written.
        var loneSurrogate: (path: String, escape: String)?
        /// The first number a 64-bit float cannot hold (too large, or not 0 but rounding to 0):
        /// its path and its text.
        var numberOutOfRange: (path: String, literal: String)?
        /// The deepest nesting of arrays and objects (brackets inside strings not counted), as
        /// far as the scan went.
        var deepestNesting = 0

        /// The reason for a 400 for a lone surrogate or an out-of-range number, or nil.
        var unrepresentableValue: String? {
            if let (path, escape) = loneSurrogate {
                return "\(Self.subject(path)) holds the escape \(escape), a lone surrogate, which encodes no character: "
                    + "a \\ud800…\\udbff escape must be followed by a \\udc00…\\udfff one (the pair writes one character); "
                    + "send the character itself or its surrogate pair"
            }
            if let (path, literal) = numberOutOfRange {
                return "\(Self.subject(path)) is the number \(literal), out of range: a JSON number here must be within "
                    + "±1.7976931348623157e308 and, unless it is 0, at least 5e-324 in size (a 64-bit float)"
            }
            return nil
        }

        private static func subject(_ path: String) -> String {
            path.isEmpty ? "the JSON body" : "'\(path)'"
        }
    }

    /// Scans `bytes` once.
    static func scan(_ bytes: [UInt8]) -> Findings {
        var findings = Findings()
        var stack: [Frame] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                let isKey = if case .object(_, true, _) = stack.last { true } else { false }
                guard let (text, end, lone) = string(in: bytes, from: index + 1, keepingText: isKey) else { return findings }
                index = end
                if isKey, case .object(var keys, _, _) = stack.last {
                    if let lone, findings.loneSurrogate == nil { findings.loneSurrogate = (path(of: stack.dropLast()), lone) }
                    if !keys.insert(text).inserted, findings.duplicateKey == nil {
                        findings.duplicateKey = (path(of: stack.dropLast()), text)
                    }
                    stack[stack.count - 1] = .object(keys: keys, expectsKey: false, key: text)
                } else if let lone, findings.loneSurrogate == nil {
                    findings.loneSurrogate = (path(of: stack[...]), lone)
                }
                continue
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                var end = index + 1
                while end < bytes.count, Self.isNumberByte(bytes[end]) { end += 1 }
                if findings.numberOutOfRange == nil, Self.isOutOfRange(bytes[index..<end]) {
                    findings.numberOutOfRange = (path(of: stack[...]), String(decoding: bytes[index..<end], as: UTF8.self))
                }
                index = end
                continue
            case UInt8(ascii: "{"):
                stack.append(.object(keys: [], expectsKey: true, key: nil))
                findings.deepestNesting = max(findings.deepestNesting, stack.count)
            case UInt8(ascii: "["):
                stack.append(.array(index: 0))
                findings.deepestNesting = max(findings.deepestNesting, stack.count)
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
        return findings
    }

    /// Whether the number written `literal` is beyond a 64-bit float: infinite when read, or
    /// read as 0 while a digit before its exponent is not 0 (`1e-400`, `2e-324`). Foundation's
    /// decoder refuses both; its `JSONSerialization` reads the second as 0.
    private static func isOutOfRange(_ literal: ArraySlice<UInt8>) -> Bool {
        guard let value = Double(String(decoding: literal, as: UTF8.self)) else { return false }
        if value.isInfinite { return true }
        guard value == 0 else { return false }
        let mantissa = literal.prefix { $0 != UInt8(ascii: "e") && $0 != UInt8(ascii: "E") }
        return mantissa.contains { (UInt8(ascii: "1")...UInt8(ascii: "9")).contains($0) }
    }

    private static func isNumberByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."),
            UInt8(ascii: "e"), UInt8(ascii: "E"): true
        default: false
        }
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

    /// The string whose text starts at `start` (after the opening quote), escapes decoded (or
    /// `""` unless `keepingText`: a value's text is not needed, only a key's), the index after
    /// its closing quote, and its first lone surrogate escape as written (`\ud800`); nil when
    /// the text ends first.
    private static func string(in bytes: [UInt8], from start: Int, keepingText: Bool) -> (String, Int, String?)? {
        var decoded: [UInt8] = []
        var lone: String?
        var index = start
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") { return (keepingText ? String(decoding: decoded, as: UTF8.self) : "", index + 1, lone) }
            guard byte == UInt8(ascii: "\\") else {
                if keepingText { decoded.append(byte) }
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
                let written = "\\u" + String(decoding: bytes[index..<(index + 4)], as: UTF8.self)
                index += 4
                // A high surrogate followed by `\uDC00`…`\uDFFF` is one scalar; any other surrogate is lone.
                if (0xD800...0xDBFF).contains(unit), index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                    bytes[index + 1] == UInt8(ascii: "u"), let low = hex(bytes, at: index + 2), (0xDC00...0xDFFF).contains(low)
                {
                    unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                    index += 6
                } else if (0xD800...0xDFFF).contains(unit), lone == nil {
                    lone = written
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
