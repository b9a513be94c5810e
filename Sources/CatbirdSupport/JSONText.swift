/// Builds small JSON texts by hand where the request path cannot afford `JSONEncoder`.
///
/// Both functions write UTF-8 bytes into one buffer and make the `String` once: the journal
/// encodes every request's headers, so the cost per header is a scan and a copy, with no
/// allocation per field.
public enum JSONText {
    /// `value` as a JSON string literal, quotes included (RFC 8259 §7).
    public static func string(_ value: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(value.utf8.count + 2)
        appendString(value, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Header fields as the JSON object stored in the journal's `request_headers` and
    /// `response_headers` columns: one key per name, in order of first appearance, spelled as
    /// it first appeared (names are grouped ASCII case-insensitively, as header matching does). A name sent once has its value
    /// as a JSON string; a repeated name has a JSON array of its values in the order received.
    /// `X-Token: abc` then `Host: h` then `x-token: def` gives
    /// `{"X-Token":["abc","def"],"Host":"h"}`, so `json_extract(request_headers, '$.Host')`
    /// is the value and `'$.X-Token[0]'`-style reads reach each repeated one (the first value
    /// is what a mock's header pattern matches).
    public static func object(_ pairs: some Sequence<(name: String, value: String)>) -> String {
        object(Array(pairs))
    }

    /// ``object(_:)`` for an array of fields: what the request path passes. Not generic, so a
    /// caller in another module runs it specialized (a generic function called across modules
    /// goes through witness tables and runtime metadata for every element).
    public static func object(_ fields: [(name: String, value: String)]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(fields.reduce(2) { $0 + $1.name.utf8.count + $1.value.utf8.count + 6 })
        out.append(UInt8(ascii: "{"))
        guard let (isFirst, next) = sameNameChains(fields) else {  // the usual request: each name once, in order
            for index in fields.indices {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                appendString(fields[index].name, to: &out)
                out.append(UInt8(ascii: ":"))
                appendString(fields[index].value, to: &out)
            }
            out.append(UInt8(ascii: "}"))
            return String(decoding: out, as: UTF8.self)
        }
        var first = true
        for index in fields.indices where isFirst[index] {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            appendString(fields[index].name, to: &out)
            out.append(UInt8(ascii: ":"))
            guard next[index] >= 0 else {
                appendString(fields[index].value, to: &out)
                continue
            }
            out.append(UInt8(ascii: "["))
            var member = index
            while member >= 0 {
                if member != index { out.append(UInt8(ascii: ",")) }
                appendString(fields[member].value, to: &out)
                member = next[member]
            }
            out.append(UInt8(ascii: "]"))
        }
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }

    /// Fields chained by name (ASCII case-insensitive): `isFirst[i]` when no earlier field has
    /// field i's name, `next[i]` the next field with the same name (-1: none); nil when every
    /// name is used once. Few fields (the usual request) are compared pairwise, with no hashing,
    /// and the arrays are made only once a name repeats; many go through a dictionary, so a
    /// request with thousands of fields stays linear.
    private static func sameNameChains(_ fields: [(name: String, value: String)]) -> (isFirst: [Bool], next: [Int])? {
        var isFirst: [Bool] = []
        var next: [Int] = []
        if fields.count <= 32 {
            for index in fields.indices where isFirst.isEmpty || isFirst[index] {
                var last = index
                for later in (index + 1)..<fields.count
                where (isFirst.isEmpty || isFirst[later]) && fields[later].name.equalsIgnoringASCIICase(fields[index].name) {
                    if isFirst.isEmpty {
                        isFirst = [Bool](repeating: true, count: fields.count)
                        next = [Int](repeating: -1, count: fields.count)
                    }
                    isFirst[later] = false
                    next[last] = later
                    last = later
                }
            }
            return isFirst.isEmpty ? nil : (isFirst, next)
        }
        isFirst = [Bool](repeating: true, count: fields.count)
        next = [Int](repeating: -1, count: fields.count)
        var repeated = false
        var lastOfName: [String: Int] = [:]
        for index in fields.indices {
            let key = fields[index].name.asciiLowercased()
            if let last = lastOfName[key] {
                isFirst[index] = false
                next[last] = index
                repeated = true
            }
            lastOfName[key] = index
        }
        return repeated ? (isFirst, next) : nil
    }

    /// Appends `value` as a JSON string literal: `"` and `\` escaped, the control characters
    /// below U+0020 as `\n`, `\r`, `\t` or `\u00XX`; every other byte copied as is (the text
    /// is valid UTF-8, so the output is too).
    public static func appendString(_ value: String, to out: inout [UInt8]) {
        var value = value
        value.withUTF8 { appendString(utf8: $0, to: &out) }
    }

    /// ``appendString(_:to:)`` for UTF-8 bytes in place. Runs of bytes that need no escape are
    /// found by a plain scan and copied whole (most texts are one run): the 404 of every
    /// unmatched request escapes a dozen texts.
    public static func appendString(utf8 bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var runStart = 0
        var index = 0
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else {
                index &+= 1
                continue
            }
            if index > runStart { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index])) }
            index &+= 1
            runStart = index
            out.append(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(byte)
            case UInt8(ascii: "\n"): out.append(UInt8(ascii: "n"))
            case UInt8(ascii: "\r"): out.append(UInt8(ascii: "r"))
            case UInt8(ascii: "\t"): out.append(UInt8(ascii: "t"))
            default:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            }
        }
        if count > runStart { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<count])) }
        out.append(UInt8(ascii: "\""))
    }

    /// Appends `number` in decimal (ASCII digits, a leading `-` when negative), with no `String`
    /// made: JSON numbers of ids and positions on the 404 path.
    public static func appendDecimal(_ number: Int64, to out: inout [UInt8]) {
        var magnitude = number.magnitude
        if number < 0 { out.append(UInt8(ascii: "-")) }
        // At most 20 digits, written backwards into a fixed buffer.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = 20
            repeat {
                start &-= 1
                digits[start] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            out.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start..<20]))
        }
    }

    /// `object` (a JSON object text from ``object(_:)``) with `pairs` added as further keys;
    /// their names must not be among its keys already.
    /// Written into one buffer (every journaled mock hit adds its `Date` and `Content-Length`).
    public static func appending(_ pairs: [(name: String, value: String)], to object: String) -> String {
        guard !pairs.isEmpty else { return object }
        var out: [UInt8] = []
        out.reserveCapacity(pairs.reduce(object.utf8.count + 2) { $0 + $1.name.utf8.count + $1.value.utf8.count + 6 })
        var object = object
        object.withUTF8 { out.append(contentsOf: UnsafeBufferPointer(rebasing: $0.dropLast())) }  // without its closing brace
        var first = object == "{}"
        for pair in pairs {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            appendString(pair.name, to: &out)
            out.append(UInt8(ascii: ":"))
            appendString(pair.value, to: &out)
        }
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }
}
