import Foundation

extension Data {
    /// Decodes standard padded base64 (RFC 4648 §4) and nothing looser: the text's length is a
    /// multiple of 4, every character is in `A–Z a–z 0–9 + /`, and `=` appears only as the
    /// last one or two characters. Nil otherwise.
    ///
    /// Foundation's `Data(base64Encoded:)` on Linux also takes `"===="` (one NUL byte),
    /// `"AB=C"` (padding inside) and `"QUJD===="` (surplus padding) and decodes them to bytes
    /// nobody meant (tester finding T13-F3); a mock body must be what its author wrote.
    /// Non-zero pad bits (`"QR=="`) are taken, as RFC 4648 §3.5 lets a decoder do.
    ///
    /// - Parameter strictBase64: the text; no whitespace or line breaks are allowed.
    public init?(strictBase64 text: String) {
        let utf8 = text.utf8
        guard utf8.count % 4 == 0 else { return nil }
        var padding = 0
        for byte in utf8 {
            if byte == UInt8(ascii: "=") {
                padding += 1
                guard padding <= 2 else { return nil }
                continue
            }
            guard padding == 0, Self.isBase64Letter(byte) else { return nil }
        }
        guard let bytes = Data(base64Encoded: text) else { return nil }
        self = bytes
    }

    private static func isBase64Letter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "/"):
            return true
        default:
            return false
        }
    }
}
