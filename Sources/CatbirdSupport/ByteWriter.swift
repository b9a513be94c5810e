#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Bytes written one piece after another into one buffer that grows by doubling, then taken
/// once as an array of exactly their size (``bytes()``).
///
/// For texts made of many small pieces on the request path (the 404 of every unmatched
/// request, docs/matching.md#near-misses): appending to an `[UInt8]` calls into the standard
/// library's array code for each piece (a uniqueness and capacity check, then a copy: about 90
/// instructions for a 10-byte piece, measured with callgrind), where a piece here is a bounds
/// check and a copy inlined at the call site.
///
/// Not copyable: it owns its buffer, freed when it goes out of scope.
public struct ByteWriter: ~Copyable {
    @usableFromInline var start: UnsafeMutablePointer<UInt8>
    @usableFromInline var written = 0
    /// Bytes written so far.
    public var count: Int { written }
    @usableFromInline var capacity: Int

    /// An empty writer with room for `capacity` bytes before it first grows.
    public init(capacity: Int) {
        self.capacity = max(capacity, 16)
        start = .allocate(capacity: self.capacity)
    }

    deinit {
        start.deallocate()
    }

    /// Makes room for `extra` more bytes.
    @inlinable @inline(__always)
    mutating func reserve(_ extra: Int) {
        if written &+ extra > capacity { grow(to: written + extra) }
    }

    @usableFromInline
    mutating func grow(to needed: Int) {
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        bigger.update(from: start, count: written)
        start.deallocate()
        start = bigger
        capacity = newCapacity
    }

    /// Appends one byte.
    @inlinable @inline(__always)
    public mutating func append(_ byte: UInt8) {
        reserve(1)
        start[written] = byte
        written &+= 1
    }

    /// Appends bytes in place.
    @inlinable @inline(__always)
    public mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        reserve(bytes.count)
        memcpy(start + written, source, bytes.count)
        written &+= bytes.count
    }

    /// Appends a literal's UTF-8 bytes.
    @inlinable @inline(__always)
    public mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { append($0) }
    }

    /// Appends an array's bytes.
    @inlinable @inline(__always)
    public mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { append($0) }
    }

    /// Appends a text's UTF-8 bytes.
    @inlinable
    public mutating func append(utf8 text: String) {
        var text = text
        text.withUTF8 { append($0) }
    }

    /// Appends bytes written before, from `range` of this writer (a text escaped once and
    /// needed several times).
    public mutating func appendCopy(of range: Range<Int>) {
        precondition(range.lowerBound >= 0 && range.upperBound <= written, "ByteWriter.appendCopy: range outside the written bytes")
        reserve(range.count)
        memcpy(start + written, start + range.lowerBound, range.count)
        written &+= range.count
    }

    /// Drops the bytes written after the first `count` (a text written and then replaced, such
    /// as a 404's reason over its bound); keeps the buffer.
    public mutating func truncate(to count: Int) {
        precondition(count >= 0 && count <= written, "ByteWriter.truncate: count outside the written bytes")
        written = count
    }

    /// Reads the bytes written so far in place.
    public func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try body(UnsafeBufferPointer(start: start, count: written))
    }

    /// The bytes written, as an array of exactly their count.
    public consuming func bytes() -> [UInt8] {
        [UInt8](UnsafeBufferPointer(start: start, count: written))
    }

    /// The bytes written, as a `String` (UTF-8; an invalid sequence would become U+FFFD).
    public func text() -> String {
        withBytes { String(decoding: $0, as: UTF8.self) }
    }

    /// Appends `bytes` (UTF-8) as a JSON string literal, quotes included (RFC 8259 §7): `"` and
    /// `\` escaped, the control characters below U+0020 as `\n`, `\r`, `\t` or `\u00XX`; every
    /// other byte copied as is (valid UTF-8 in, valid UTF-8 out). With `lineBreaksAsSpaces`, CR
    /// and LF first become spaces (a one-line text). The project's one JSON string escaper
    /// (``JSONText`` writes with it; ``appendJSONStringContent(_:lineBreaksAsSpaces:nested:)``).
    public mutating func appendJSONString(_ bytes: UnsafeBufferPointer<UInt8>, lineBreaksAsSpaces: Bool = false) {
        append(UInt8(ascii: "\""))
        appendJSONStringContent(bytes, lineBreaksAsSpaces: lineBreaksAsSpaces)
        append(UInt8(ascii: "\""))
    }

    /// Appends `bytes` (UTF-8) escaped as the inside of a JSON string literal, without its
    /// quotes: ``appendJSONString(_:lineBreaksAsSpaces:)``'s text, so a string written in pieces
    /// (a 404's reason, each piece escaped as it is written) is the same bytes as the whole
    /// written at once. With `nested`, each escape is itself escaped, so that the bytes are those
    /// of a JSON string literal's text (its escapes) inside another JSON string: `"` becomes
    /// `\\\"`, `\` becomes `\\\\`, a line feed `\\n` (`lineBreaksAsSpaces` then changes nothing:
    /// the inner literal holds no line break). Runs that need no escape are found 8 bytes at a
    /// time and copied whole.
    public mutating func appendJSONStringContent(_ bytes: UnsafeBufferPointer<UInt8>, lineBreaksAsSpaces: Bool = false, nested: Bool = false) {
        guard let base = bytes.baseAddress else { return }
        reserve(bytes.count)
        var runStart = 0
        var index = 0
        let total = bytes.count
        while index < total {
            if index &+ 8 <= total {
                // The lowest flagged byte of a word is the first one needing an escape.
                let flagged = Self.escapeMask(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
                guard flagged != 0 else {
                    index &+= 8
                    continue
                }
                index &+= flagged.trailingZeroBitCount &>> 3
            } else {
                let byte = base[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else {
                    index &+= 1
                    continue
                }
            }
            let byte = base[index]
            append(UnsafeBufferPointer(start: base + runStart, count: index &- runStart))
            index &+= 1
            runStart = index
            if lineBreaksAsSpaces && !nested && (byte == 10 || byte == 13) {
                append(UInt8(ascii: " "))
                continue
            }
            // The escape's backslash, itself escaped inside another string.
            if nested { append(UInt8(ascii: "\\")) }
            append(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                if nested { append(UInt8(ascii: "\\")) }
                append(byte)
            case UInt8(ascii: "\n"): append(UInt8(ascii: "n"))
            case UInt8(ascii: "\r"): append(UInt8(ascii: "r"))
            case UInt8(ascii: "\t"): append(UInt8(ascii: "t"))
            default:
                let hex: StaticString = "0123456789abcdef"
                let digits = hex.utf8Start
                append("u00")
                append(digits[Int(byte >> 4)])
                append(digits[Int(byte & 0xF)])
            }
        }
        append(UnsafeBufferPointer(start: base + runStart, count: total &- runStart))
    }

    /// Appends `text` escaped as the inside of a JSON string literal
    /// (``appendJSONStringContent(_:lineBreaksAsSpaces:nested:)``).
    public mutating func appendJSONStringContent(_ text: String, lineBreaksAsSpaces: Bool = false, nested: Bool = false) {
        // The bytes of a native (or small) string read in place; a copy (`var text = text` and
        // `withUTF8`, a retain and release per piece) only for one that is not contiguous.
        if text.utf8.withContiguousStorageIfAvailable({
            appendJSONStringContent($0, lineBreaksAsSpaces: lineBreaksAsSpaces, nested: nested)
        }) != nil { return }
        var text = text
        text.withUTF8 { appendJSONStringContent($0, lineBreaksAsSpaces: lineBreaksAsSpaces, nested: nested) }
    }

    /// Appends `text` as a JSON string literal (``appendJSONString(_:lineBreaksAsSpaces:)``'s
    /// bytes) written inside another JSON string: its quotes as `\"`, its text
    /// ``appendJSONStringContent(_:lineBreaksAsSpaces:nested:)`` nested. A 404's reason quotes
    /// the request's values so (`got \"/api/usres\"`).
    public mutating func appendNestedJSONString(_ text: String) {
        append(#"\""#)
        appendJSONStringContent(text, nested: true)
        append(#"\""#)
    }

    /// The high bit of each of the 8 bytes of `word` (little-endian) that needs an escape in a
    /// JSON string (one below 0x20, a quote or a backslash), by the "has a byte less than n" and
    /// "has a zero byte" word tests: a borrow may also flag a byte above one that needs an
    /// escape, never one below, so the lowest bit set is the first byte to escape; 0 when none.
    @inline(__always)
    static func escapeMask(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        let control = (word &- ones &* 0x20) & ~word
        let quote = word ^ (ones &* UInt64(UInt8(ascii: "\"")))
        let backslash = word ^ (ones &* UInt64(UInt8(ascii: "\\")))
        return (control | ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)) & high
    }

    /// Appends `text` as a JSON string literal (``appendJSONString(_:lineBreaksAsSpaces:)``).
    public mutating func appendJSONString(_ text: String) {
        // In place, as ``appendJSONStringContent(_:lineBreaksAsSpaces:nested:)``'s `String` form.
        if text.utf8.withContiguousStorageIfAvailable({ appendJSONString($0) }) != nil { return }
        var text = text
        text.withUTF8 { appendJSONString($0) }
    }

    /// Appends `text` as a JSON string literal, escaped only the first time: `range` is where
    /// those bytes are (nil before), and later calls copy them from there.
    public mutating func appendJSONString(_ text: String, once range: inout Range<Int>?) {
        if let range {
            appendCopy(of: range)
        } else {
            let first = written
            appendJSONString(text)
            range = first..<written
        }
    }

    /// Appends `number` in decimal (ASCII digits, a leading `-` when negative), with no `String`
    /// made: JSON numbers of ids and positions on the 404 path.
    public mutating func appendDecimal(_ number: Int64) {
        reserve(20)
        var magnitude = number.magnitude
        if number < 0 { append(UInt8(ascii: "-")) }
        var digits = 1
        var rest = magnitude / 10
        while rest > 0 {
            digits &+= 1
            rest /= 10
        }
        var index = written &+ digits
        written = index
        repeat {
            index &-= 1
            start[index] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
            magnitude /= 10
        } while magnitude > 0
    }
}
