extension String {
    /// `bytes` as text when they are valid UTF-8, else nil. ASCII (every request line and
    /// nearly every header) is checked a word at a time and decoded without a second look;
    /// the standard library's generic `String(validating:as:)` costs about 60 instructions a
    /// byte, on every request.
    init?(requestBytes bytes: UnsafeBufferPointer<UInt8>) {
        if Self.isASCII(bytes) {
            self = String(decoding: bytes, as: UTF8.self)
        } else if let text = String(validating: bytes, as: UTF8.self) {
            self = text
        } else {
            return nil
        }
    }

    private static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        var index = 0
        var seen: UInt64 = 0
        while index + 8 <= bytes.count {
            seen |= raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            index += 8
        }
        while index < bytes.count {
            seen |= UInt64(bytes[index])
            index += 1
        }
        return seen & 0x8080_8080_8080_8080 == 0
    }
}
