/// The members of a comma-separated HTTP field value (RFC 9110 section 5.6.1), each with the
/// optional whitespace around it trimmed and empty ones dropped. A comma inside a quoted-string
/// (section 5.6.4: `"…"`, a backslash escaping the next character) is the member's, not a
/// separator (tester finding tester61a-F6: `application/json; charset="utf-8, x"` was read as
/// two Content-Type values).
public enum HTTPFieldList {
    public static func members(_ value: String) -> [Substring] {
        var members: [Substring] = []
        var start = value.startIndex
        var index = value.startIndex
        var quoted = false
        while index < value.endIndex {
            switch value[index] {
            case "\"": quoted.toggle()
            case "\\" where quoted:
                index = value.index(after: index)
                if index == value.endIndex { continue }
            case "," where !quoted:
                members.append(value[start..<index])
                start = value.index(after: index)
            default: break
            }
            index = value.index(after: index)
        }
        members.append(value[start...])
        return members.map { $0.trimmingOptionalWhitespace() }.filter { !$0.isEmpty }
    }
}
