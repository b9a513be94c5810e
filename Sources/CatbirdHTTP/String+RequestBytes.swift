import CatbirdSupport

extension String {
    /// `bytes` as text when they are valid UTF-8, else nil. ASCII (every request line and
    /// nearly every header) is checked a word at a time and decoded without a second look;
    /// the standard library's generic `String(validating:as:)` costs about 60 instructions a
    /// byte, on every request.
    init?(requestBytes bytes: UnsafeBufferPointer<UInt8>) {
        self.init(requestBytes: bytes, scan: Self.scan(bytes, forSpaceOrControl: false))
    }

    /// A request-target's `bytes` as text (nil when not valid UTF-8), and whether they hold a
    /// space or a control byte (below 0x21, or 0x7F), which RFC 9112 section 3.2 does not allow
    /// in a request-target (``HTTPRequestProblem/targetSpaceOrControl``). One scan, a word at a
    /// time, answers both that and whether the bytes are ASCII.
    static func requestTarget(_ bytes: UnsafeBufferPointer<UInt8>) -> (text: String?, hasSpaceOrControl: Bool) {
        let scan = scan(bytes, forSpaceOrControl: true)
        return (String(requestBytes: bytes, scan: scan), scan.hasSpaceOrControl)
    }

    /// A request-target that is not text (``HTTPRequestProblem/targetNotText``) as the journal
    /// keeps it: each byte that is not part of a valid UTF-8 sequence, and each NUL, written
    /// `%XX` (upper-case hexadecimal), the rest as sent (a `%` the client sent stays as it is).
    /// The request is refused before matching; this is what its entry's `url` and its log line
    /// show (tester finding tester38a-F2: an app sending a raw ISO-8859-1 `é` left no journal
    /// entry at all).
    static func percentEncodingNonText(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 16)
        var index = 0
        while index < bytes.count {
            let lead = bytes[index]
            let length =
                switch lead {
                case 0x01...0x7F: 1
                case 0xC2...0xDF: 2
                case 0xE0...0xEF: 3
                case 0xF0...0xF4: 4
                default: 0  // NUL, a continuation byte, or a lead byte no valid sequence has
                }
            if length > 0, index + length <= bytes.count,
               length == 1 || String(validating: UnsafeBufferPointer(rebasing: bytes[index..<index + length]), as: UTF8.self) != nil
            {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[index..<index + length]))
                index += length
            } else {
                ASCIIByte.appendPercentEncoded(lead, to: &out)
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private init?(requestBytes bytes: UnsafeBufferPointer<UInt8>, scan: Scan) {
        if scan.isASCII {
            self = String(decoding: bytes, as: UTF8.self)
        } else if let text = String(validating: bytes, as: UTF8.self) {
            self = text
        } else {
            return nil
        }
    }

    /// What one pass over request bytes found.
    private struct Scan {
        var isASCII: Bool
        /// Whether a byte below 0x21 or 0x7F was seen; only looked for when asked (else false).
        var hasSpaceOrControl: Bool
    }

    /// `bytes` read eight at a time. A byte below 0x21 in a word `x` shows as a high bit in
    /// `(x - 0x21…21) & ~x & 0x80…80`, and 0x7F as a zero byte of `x ^ 0x7F…7F` (the "has a
    /// byte less than n" test, exact as a yes or no for n up to 128: a borrow only marks bytes
    /// above one that is truly less). `forSpaceOrControl` is a constant at each call, so the
    /// header values' scan (which does not ask) compiles without those steps.
    @inline(__always)
    private static func scan(_ bytes: UnsafeBufferPointer<UInt8>, forSpaceOrControl: Bool) -> Scan {
        guard let base = bytes.baseAddress else { return Scan(isASCII: true, hasSpaceOrControl: false) }
        let raw = UnsafeRawPointer(base)
        let ones: UInt64 = 0x0101_0101_0101_0101
        let spaces: UInt64 = 0x2121_2121_2121_2121  // one more than a space: below it is refused
        let deletes: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        let highBits: UInt64 = 0x8080_8080_8080_8080
        var index = 0
        var seen: UInt64 = 0
        var controls: UInt64 = 0
        while index + 8 <= bytes.count {
            let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            seen |= word
            if forSpaceOrControl {
                let delete = word ^ deletes
                controls |= ((word &- spaces) & ~word) | ((delete &- ones) & ~delete)
            }
            index += 8
        }
        var controlByte = false
        while index < bytes.count {
            let byte = bytes[index]
            seen |= UInt64(byte)
            if forSpaceOrControl, byte < 0x21 || byte == 0x7F { controlByte = true }
            index += 1
        }
        return Scan(isASCII: seen & highBits == 0, hasSpaceOrControl: controlByte || controls & highBits != 0)
    }
}
