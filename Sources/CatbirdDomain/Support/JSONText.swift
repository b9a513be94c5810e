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

    /// A JSON object of string values, keys in the given order. Repeated keys are joined into
    /// one value with ", " (RFC 9110 §5.3 field combination), keeping the first key's spelling.
    public static func object(_ pairs: some Sequence<(name: String, value: String)>) -> String {
        var order: [String] = []
        var values: [String: (name: String, value: String)] = [:]
        for pair in pairs {
            let key = pair.name.lowercased()
            if let existing = values[key] {
                values[key] = (existing.name, existing.value + ", " + pair.value)
            } else {
                order.append(key)
                values[key] = pair
            }
        }
        var out = "{"
        for (index, key) in order.enumerated() {
            let pair = values[key]!
            if index > 0 { out += "," }
            out += string(pair.name) + ":" + string(pair.value)
        }
        return out + "}"
    }
}
