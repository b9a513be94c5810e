extension JSONText {
    /// How many characters of a long string (a tenant id) text for people shows: 64.
    public static let shownCharacters = 64

    /// `value` as a JSON string literal for text people read (an error's reason, the web
    /// page): a value longer than `maxCharacters` characters is cut to its first
    /// `maxCharacters`, with `…` inside the quotes and its length after them, e.g.
    /// `"aaaa…" (20000 characters)`, so a 20,000-character tenant id cannot swamp a message.
    /// JSON fields meant for programs keep the whole value (docs/tenancy.md#ids-in-messages).
    public static func shortString(_ value: String, maxCharacters: Int = shownCharacters) -> String {
        // No more bytes than allowed characters: nothing to cut, no characters counted.
        guard value.utf8.count > maxCharacters, let end = value.index(value.startIndex, offsetBy: maxCharacters, limitedBy: value.endIndex), end != value.endIndex
        else { return string(value) }
        return string(value[..<end] + "…") + " (\(value.count) characters)"
    }

    /// Appends ``shortString(_:maxCharacters:)`` of `value` (a 404's reason names tenants so).
    public static func appendShortString(_ value: String, maxCharacters: Int = shownCharacters, to out: inout ByteWriter) {
        if value.utf8.count <= maxCharacters {
            out.appendJSONString(value)
        } else {
            out.append(utf8: shortString(value, maxCharacters: maxCharacters))
        }
    }
}
