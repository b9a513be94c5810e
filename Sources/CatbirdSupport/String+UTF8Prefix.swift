extension StringProtocol {
    /// The longest start of this text of at most `maxBytes` UTF-8 bytes that ends on a Unicode
    /// scalar boundary; the whole text when it has no more bytes than that. Every cap on text a
    /// reason or a near miss shows counts so (docs/protocol.md#errors): a count of `Character`s
    /// (extended grapheme clusters) bounds nothing, since one of them can be any number of
    /// combining marks: a regexp `(` and 100,000 U+0301 was one character and a 200,094-byte
    /// reason (try7b F10). A base letter may lose some of its marks at the cut; no scalar is split.
    /// - Parameter maxBytes: the most UTF-8 bytes kept, 0 or more.
    public func utf8Prefix(_ maxBytes: Int) -> String {
        // One byte past the bound tells whether the cut splits a scalar; no more is read.
        let head = Array(utf8.prefix(maxBytes + 1))
        guard head.count > maxBytes else { return String(self) }
        var end = maxBytes
        // Back off a scalar's continuation bytes (10xxxxxx) to the byte that starts it.
        while end > 0, head[end] & 0xC0 == 0x80 { end -= 1 }
        return String(decoding: head[..<end], as: UTF8.self)
    }
}
