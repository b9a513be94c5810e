extension LiteralRequirement {
    /// Whether this requires nothing (no prefix, no infix).
    public var isNone: Bool { prefix.isEmpty && infix.isEmpty }

    /// Whether an ASCII `subject` (every byte below 0x80) meets the requirement: it starts with
    /// ``prefix`` and contains ``infix``, both compared ignoring ASCII case. A subject that does
    /// not cannot match the pattern the requirement was read from; one that does may or may
    /// not. Meaningless for a non-ASCII subject (Unicode case folding reaches ASCII text).
    public func admits(asciiSubject subject: UnsafeBufferPointer<UInt8>) -> Bool {
        guard subject.count >= prefix.count else { return false }
        for (offset, byte) in prefix.enumerated() where ASCIICase.lower(subject[offset]) != byte { return false }
        guard let first = infix.first else { return true }
        guard subject.count >= infix.count else { return false }
        var start = 0
        let lastStart = subject.count - infix.count
        while start <= lastStart {
            if ASCIICase.lower(subject[start]) == first {
                var offset = 1
                while offset < infix.count, ASCIICase.lower(subject[start + offset]) == infix[offset] { offset += 1 }
                if offset == infix.count { return true }
            }
            start += 1
        }
        return false
    }
}
