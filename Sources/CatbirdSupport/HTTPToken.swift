/// RFC 9110 §5.6.2 tokens: what a method and a field name are made of.
public enum HTTPToken {
    /// Whether `byte` is a tchar: a letter, a digit or one of ``!#$%&'*+-.^_`|~``.
    public static func isTokenCharacter(_ byte: UInt8) -> Bool {
        ASCIIByte.isLetter(byte) || ASCIIByte.isDigit(byte) || "!#$%&'*+-.^_`|~".utf8.contains(byte)
    }
}
