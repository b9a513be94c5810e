/// Builds small JSON texts by hand where the request path cannot afford `JSONEncoder`.
public enum JSONText {
    /// `value` as a JSON string literal, quotes included (RFC 8259 §7).
    public static func string(_ value: String) -> String {
        var out = "\""
        out.reserveCapacity(value.utf8.count + 2)
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
        return out
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
        var order: [String] = []
        var fields: [String: (name: String, values: [String])] = [:]
        for pair in pairs {
            let key = pair.name.asciiLowercased()
            if fields[key] != nil {
                fields[key]!.values.append(pair.value)
            } else {
                order.append(key)
                fields[key] = (pair.name, [pair.value])
            }
        }
        var out = "{"
        for (index, key) in order.enumerated() {
            let field = fields[key]!
            if index > 0 { out += "," }
            out += string(field.name) + ":"
            if field.values.count == 1 {
                out += string(field.values[0])
            } else {
                out += "[" + field.values.map(string).joined(separator: ",") + "]"
            }
        }
        return out + "}"
    }
}
