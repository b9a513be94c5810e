extension CompiledRequestPattern {
    /// This pattern with its body pattern left out, compiled again: what a request that matches
    /// all but the body matches (a body the journal cut, or one refused before it was read).
    /// Nil when the pattern has no body pattern.
    public var withoutBody: CompiledRequestPattern? {
        guard source.body != nil else { return nil }
        var bodiless = source
        bodiless.body = nil
        return try? CompiledRequestPattern(bodiless)
    }
}
