extension Substring {
    /// Without the spaces and tabs around it: HTTP's optional whitespace (OWS, RFC 9110
    /// section 5.6.3) around a list member or a parameter.
    public func trimmingOptionalWhitespace() -> Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }
}
