/// Builds small JSON texts by hand where the request path cannot afford `JSONEncoder`.
///
/// Each function writes UTF-8 bytes into one ``ByteWriter`` (its escapes,
/// ``ByteWriter/appendJSONString(_:lineBreaksAsSpaces:)``, are the only JSON string escaper)
/// and makes the `String` once: the journal encodes every request's headers, so the cost per
/// header is a scan and a copy, with no allocation per field.
public enum JSONText {
    /// `value` as a JSON string literal, quotes included (RFC 8259 §7).
    public static func string(_ value: String) -> String {
        var out = ByteWriter(capacity: value.utf8.count + 2)
        out.appendJSONString(value)
        return out.text()
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
        var out = ByteWriter(capacity: fields.reduce(2) { $0 + $1.name.utf8.count + $1.value.utf8.count + 6 })
        out.append(UInt8(ascii: "{"))
        guard let (isFirst, next) = sameNameChains(fields) else {  // the usual request: each name once, in order
            for index in fields.indices {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                out.appendJSONString(fields[index].name)
                out.append(UInt8(ascii: ":"))
                out.appendJSONString(fields[index].value)
            }
            out.append(UInt8(ascii: "}"))
            return out.text()
        }
        var first = true
        for index in fields.indices where isFirst[index] {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            out.appendJSONString(fields[index].name)
            out.append(UInt8(ascii: ":"))
            guard next[index] >= 0 else {
                out.appendJSONString(fields[index].value)
                continue
            }
            out.append(UInt8(ascii: "["))
            var member = index
            while member >= 0 {
                if member != index { out.append(UInt8(ascii: ",")) }
                out.appendJSONString(fields[member].value)
                member = next[member]
            }
            out.append(UInt8(ascii: "]"))
        }
        out.append(UInt8(ascii: "}"))
        return out.text()
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

    /// `object` (a JSON object text from ``object(_:)``) with `pairs` added as further keys;
    /// their names must not be among its keys already.
    /// Written into one buffer (every journaled mock hit adds its `Date` and `Content-Length`).
    public static func appending(_ pairs: [(name: String, value: String)], to object: String) -> String {
        guard !pairs.isEmpty else { return object }
        var out = ByteWriter(capacity: pairs.reduce(object.utf8.count + 2) { $0 + $1.name.utf8.count + $1.value.utf8.count + 6 })
        var object = object
        object.withUTF8 { out.append(UnsafeBufferPointer(rebasing: $0.dropLast())) }  // without its closing brace
        var first = object == "{}"
        for pair in pairs {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            out.appendJSONString(pair.name)
            out.append(UInt8(ascii: ":"))
            out.appendJSONString(pair.value)
        }
        out.append(UInt8(ascii: "}"))
        return out.text()
    }
}
