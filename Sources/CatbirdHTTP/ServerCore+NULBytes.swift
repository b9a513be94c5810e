import CMicroHTTPD
#if canImport(Glibc)
import Glibc
#endif

/// NUL bytes inside the request line or a header field, which libmicrohttpd 0.9.75 hands over
/// as C strings cut at the first NUL: `X-Catbird-Parallel-Id: A\0-not-A` would read as `A`, and
/// `X-Catbird-Parallel-Id: \0attacker` as an empty id (the default tenant). No field line may
/// hold a NUL (RFC 9110 section 5.5; RFC 9112 section 2.2), so such a request is refused with
/// 400 (docs/protocol.md#malformed-requests).
///
/// libmicrohttpd 0.9.75 parses the head in place in its read buffer: each line's end (CR LF, or
/// a bare LF) becomes one or two NULs, a field's colon becomes a NUL followed by the spaces or
/// tabs it skipped before the value, and the space between the method and the target a NUL.
/// So the strings it hands over, in order, are separated by exactly those bytes; any other
/// byte between the end of one string and the start of the next means the first was cut by a
/// NUL the client sent. (One case is not told apart: a NUL as the very last byte of a line
/// ended by a bare LF looks like a CR LF; it cuts nothing.)
extension ServerCore {
    /// Whether the bytes in `[from, to)` are one line end: one or two NULs (`lines` = 1), or up
    /// to two line ends (`lines` = 2: the last field's, then the empty line closing the head).
    static func isLineEnd(from: Int, to: Int, lines: Int = 1) -> Bool {
        let count = to - from
        guard count >= lines, count <= 2 * lines, let start = UnsafePointer<UInt8>(bitPattern: from) else { return false }
        return (0..<count).allSatisfy { start[$0] == 0 }
    }

    /// Whether the bytes in `[nameEnd, valueStart)` are the colon libmicrohttpd replaced with a
    /// NUL, then only spaces or tabs.
    static func isColon(from nameEnd: Int, to valueStart: Int) -> Bool {
        guard valueStart > nameEnd, let start = UnsafePointer<UInt8>(bitPattern: nameEnd), start[0] == 0 else { return false }
        return (1..<(valueStart - nameEnd)).allSatisfy { start[$0] == 0x20 || start[$0] == 0x09 }
    }

    /// Whether the bytes between the method's C string and the target are the one space
    /// libmicrohttpd replaced with a NUL (then any further spaces): else the method was cut.
    static func methodEndsAtSpace(_ method: UnsafePointer<CChar>, targetStart: Int) -> Bool {
        let methodEnd = Int(bitPattern: method) + strlen(method)
        guard targetStart > methodEnd, let start = UnsafePointer<UInt8>(bitPattern: methodEnd), start[0] == 0 else { return false }
        return (1..<(targetStart - methodEnd)).allSatisfy { start[$0] == 0x20 }
    }

    /// Checks one field as ``collectHeader`` meets it: the previous string (the version, or the
    /// previous field's value) ends at a line end right before `key`, and `key` ends at its
    /// colon right before `value`. Records where `value` ends for the next field or the head's
    /// end (``checkHeadEnd(_:)``). A field whose line holds a NUL is left out of the headers, as
    /// every refused field line is (docs/protocol.md#malformed-requests): the previous field is
    /// removed here; for this one, `skip` says not to add it.
    /// - Returns: the problem, naming the field whose line holds the NUL, or nil.
    static func nulProblem(key: UnsafePointer<CChar>, name: String, value: UnsafePointer<CChar>?, valueLength: Int,
                           _ context: RequestContext) -> (problem: HTTPRequestProblem, skip: Bool)? {
        guard context.rawLineEnd != 0 else { return nil }
        let keyStart = Int(bitPattern: key)
        if !isLineEnd(from: context.rawLineEnd, to: keyStart) { return (gapProblem(from: context.rawLineEnd, to: keyStart, context), false) }
        guard let value else {
            context.rawLineEnd = 0  // nothing to measure the next field from
            return nil
        }
        let valueStart = Int(bitPattern: value)
        if !isColon(from: keyStart + name.utf8.count, to: valueStart) { return (.nulByte(field: name), true) }
        context.rawLineEnd = valueStart + valueLength
        context.rawLineField = name
        return nil
    }

    /// After the last field: what follows its value (or the version, without fields) up to the
    /// head's end is its line end and the empty line.
    static func checkHeadEnd(_ context: RequestContext) -> HTTPRequestProblem? {
        guard context.rawLineEnd != 0, context.rawHeadEnd > context.rawLineEnd else { return nil }
        return isLineEnd(from: context.rawLineEnd, to: context.rawHeadEnd, lines: 2) ? nil : gapProblem(from: context.rawLineEnd, to: context.rawHeadEnd, context)
    }

    /// What lies between two strings that are not one line end apart: a line libmicrohttpd
    /// dropped because its name is empty (`: v`: after the line end's NULs, its colon, which
    /// 0.9.75 turns into a NUL too), else a NUL byte that cut the string before, whose field is
    /// then removed from the headers.
    private static func gapProblem(from end: Int, to next: Int, _ context: RequestContext) -> HTTPRequestProblem {
        // The shortest dropped line, `:` alone, leaves five bytes: two line-end NULs, its colon's
        // NUL, its own line end's two; a NUL right before a CR LF leaves three.
        if next - end >= 5, let bytes = UnsafePointer<UInt8>(bitPattern: end), bytes[0] == 0, bytes[1] == 0,
           bytes[2] == 0 || bytes[2] == UInt8(ascii: ":")
        {
            return .fieldNameNotToken(name: "")
        }
        if context.rawLineField != nil { context.headers.removeLast() }
        return .nulByte(field: context.rawLineField)
    }
}
