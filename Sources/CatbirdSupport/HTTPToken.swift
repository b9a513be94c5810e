/// RFC 9110 §5.6.2 tokens: what a method and a field name are made of.
public enum HTTPToken {
    /// Whether `byte` is a tchar: a letter, a digit or one of ``!#$%&'*+-.^_`|~``.
    public static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
