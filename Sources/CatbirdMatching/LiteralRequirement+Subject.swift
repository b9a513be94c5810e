import CatbirdSupport

extension LiteralRequirement {
    /// Whether this requires nothing (no prefix, no infix).
    public var isNone: Bool { prefix.isEmpty && infix.isEmpty }

    /// Whether an ASCII `subject` (every byte below 0x80) meets the requirement: it starts with
    /// ``prefix`` and contains ``infix``, both compared ignoring ASCII case. A subject that does
    /// not cannot match the pattern the requirement was read from; one that does may or may
    /// not. Meaningless for a non-ASCII subject (Unicode case folding reaches ASCII text).
    public func admits(asciiSubject subject: UnsafeBufferPointer<UInt8>) -> Bool {
        ASCIICase.find(prefix, in: subject, anchoredStart: true) && ASCIICase.find(infix, in: subject)
    }
}
