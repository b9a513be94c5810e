/// One text (a request-target) prepared for Levenshtein distances to many others, over bytes.
///
/// Bit-parallel (Myers 1999, "A fast bit-vector algorithm for approximate string matching based
/// on dynamic programming", in Hyyrö's formulation for the distance between two whole texts):
/// the probe's bytes are bit positions in one machine word (two for 65–128 bytes), and each
/// byte of the other text costs a dozen word operations, whatever the probe's length. Texts
/// longer than ``CompiledRequestPattern/comparedURLLength`` bytes are compared by their first
/// that many bytes (docs/matching.md#near-misses).
public struct EditDistanceProbe: Sendable {
    /// The probe's bytes, cut.
    public let bytes: [UInt8]
    /// For each byte value from ``low`` to the probe's highest (``span`` of them), the
    /// positions of the probe holding it, then one entry of zeros for every other byte value
    /// (``ProbeTable/slot(of:)``); one word per entry when the probe fits 64 bits, else two:
    /// low word, high word. Sized to the probe's bytes: a URL's span, `/` to `z`, is 76
    /// entries (616 bytes), where a table of all 256 byte values (2 KiB, 4 KiB wide) was made
    /// and zeroed for every 404 (a `malloc` of 2 KiB, past glibc's per-thread cache, was
    /// about 1,200 instructions of the 404's 121,000, counted with callgrind).
    private let positions: [UInt64]
    /// The probe's lowest byte value (0 for an empty probe).
    private let low: UInt8
    /// Byte values the table holds before its zero entry: the probe's highest byte value less
    /// ``low``, plus one (0 for an empty probe).
    private let span: Int

    /// Prepares `text`'s UTF-8 bytes, cut to `limit` (at most 128).
    public init(_ text: String, limit: Int) {
        precondition(limit <= 128, "EditDistanceProbe holds at most 128 bytes")
        // A text within the limit is copied whole (one copy of a native string's bytes).
        bytes = text.utf8.count <= limit ? Array(text.utf8) : Array(text.utf8.prefix(limit))
        let low = bytes.min() ?? 0
        let span = bytes.max().map { Int($0 - low) + 1 } ?? 0
        let wide = bytes.count > 64
        var positions = [UInt64](repeating: 0, count: (span + 1) * (wide ? 2 : 1))
        for (index, byte) in bytes.enumerated() {
            if wide {
                positions[Int(byte - low) * 2 + index / 64] |= 1 << UInt64(index % 64)
            } else {
                positions[Int(byte - low)] |= 1 << UInt64(index)
            }
        }
        self.positions = positions
        self.low = low
        self.span = span
    }

    /// The Levenshtein distance (insertions, deletions, substitutions of single bytes) between
    /// the probe and `other` (the caller cuts `other` as the probe was cut).
    public func distance(to other: [UInt8]) -> Int {
        other.withUnsafeBufferPointer { distance(to: $0) }
    }

    /// The distance to bytes in place (see the array version).
    public func distance(to other: UnsafeBufferPointer<UInt8>) -> Int {
        guard !bytes.isEmpty else { return other.count }
        return positions.withUnsafeBufferPointer { positions in
            let table = ProbeTable(words: positions.baseAddress!, low: low, span: span)
            return bytes.count > 64
                ? Self.distance(UInt128.self, length: bytes.count, to: other, table: table)
                : Self.distance(UInt64.self, length: bytes.count, to: other, table: table)
        }
    }

    /// The least Levenshtein distance between the probe and any text of `columns.length` bytes
    /// whose byte `j` is one of column `j`'s bytes (``ColumnClasses``): the same recurrence,
    /// with a column matching each probe position whose byte it holds. At most the distance
    /// to each text the columns were made from.
    public func leastDistance(to columns: ColumnClasses) -> Int {
        columns.bytes.withUnsafeBufferPointer { classBytes in
            columns.ends.withUnsafeBufferPointer { ends in leastDistance(columnBytes: classBytes, from: 0, ends: ends) }
        }
    }

    /// ``leastDistance(to:)`` for columns stored in place (several ``ColumnClasses`` laid out
    /// one after another, read without copying): the first column's bytes start at
    /// `columnBytes[start]`, and column `j`'s end at `columnBytes[ends[j]]` (`ends` as in
    /// ``ColumnClasses``, offset by `start`); `ends.count` is the texts' length.
    public func leastDistance(columnBytes: UnsafeBufferPointer<UInt8>, from start: Int, ends: UnsafeBufferPointer<Int32>) -> Int {
        guard !bytes.isEmpty else { return ends.count }
        return positions.withUnsafeBufferPointer { positions in
            let table = ProbeTable(words: positions.baseAddress!, low: low, span: span)
            return bytes.count > 64
                ? Self.leastDistance(UInt128.self, length: bytes.count, to: (columnBytes, start, ends), table: table)
                : Self.leastDistance(UInt64.self, length: bytes.count, to: (columnBytes, start, ends), table: table)
        }
    }

    /// The recurrence over `other`'s bytes (`table`: the probe's, ``ProbeWord/positions(of:in:)``).
    /// Generic over the word size but private and always inlined, so each use is specialized
    /// (an unspecialized generic recurrence was measured several times the instructions per byte).
    @inline(__always)
    private static func distance<Word: ProbeWord>(
        _: Word.Type, length: Int, to other: UnsafeBufferPointer<UInt8>, table: ProbeTable
    ) -> Int {
        var column = BitColumn<Word>(length: length)
        for byte in other { column.advance(equal: Word.positions(of: byte, in: table)) }
        return column.score
    }

    /// The recurrence over columns of bytes (``ColumnClasses``), a column's word the union of its bytes'.
    @inline(__always)
    private static func leastDistance<Word: ProbeWord>(
        _: Word.Type, length: Int, to columns: (bytes: UnsafeBufferPointer<UInt8>, start: Int, ends: UnsafeBufferPointer<Int32>),
        table: ProbeTable
    ) -> Int {
        var column = BitColumn<Word>(length: length)
        var start = columns.start
        for end in columns.ends {
            var equal: Word = 0
            for index in start..<Int(end) { equal |= Word.positions(of: columns.bytes[index], in: table) }
            start = Int(end)
            column.advance(equal: equal)
        }
        return column.score
    }
}

/// One column of the bit-vector recurrence (Myers/Hyyrö, ``EditDistanceProbe``) in a word of
/// the probe's size: `vp`/`vn` hold the vertical differences (+1/-1) of the dynamic-programming
/// matrix's current column, one bit per probe position; `score` is its last cell. The top row
/// grows by one per column (the carry-in of 1).
private struct BitColumn<Word: ProbeWord> {
    var vp: Word
    var vn: Word = 0
    var score: Int
    let lastBit: Word

    /// The first column for a probe of `length` bytes (1 to the word's bits).
    @inline(__always)
    init(length: Int) {
        vp = length == Word.bitWidth ? ~0 : (1 &<< Word(length)) &- 1
        score = length
        lastBit = Word(length &- 1)
    }

    /// Moves to the next column, whose byte matches the probe positions set in `equal`.
    @inline(__always)
    mutating func advance(equal: Word) {
        // Masking shifts (`&<<`, `&>>`) throughout: every amount here is below the word's
        // bits, and the plain operators would test each one for overshifting (a third of the
        // work per byte).
        let xv = equal | vn
        let xh = (((equal & vp) &+ vp) ^ vp) | equal
        let hp = vn | ~(xh | vp)
        let hn = vp & xh
        // hp and hn never share a bit: +1, -1 or 0, with no branch.
        score &+= Int(truncatingIfNeeded: (hp &>> lastBit) & 1) &- Int(truncatingIfNeeded: (hn &>> lastBit) & 1)
        let shiftedP = (hp &<< 1) | 1
        vp = (hn &<< 1) | ~(xv | shiftedP)
        vn = shiftedP & xv
    }
}

/// A probe's table read in place (``EditDistanceProbe``'s positions, ``low`` and ``span``).
private struct ProbeTable {
    let words: UnsafePointer<UInt64>
    let low: UInt8
    let span: Int

    /// The entry of `byte`: its offset from ``low`` when within ``span``, else the zero entry
    /// at ``span``. A byte below ``low`` wraps to at least `256 - low`, which is at least ``span``.
    @inline(__always)
    func slot(of byte: UInt8) -> Int {
        let offset = Int(byte &- low)
        return offset < span ? offset : span
    }
}

/// A word holding a probe's positions: `UInt64` for 1-64 bytes (one table word per entry),
/// `UInt128` for 65-128 (two: low, high).
private protocol ProbeWord: FixedWidthInteger, UnsignedInteger {
    /// A byte's positions in the probe's table.
    static func positions(of byte: UInt8, in table: ProbeTable) -> Self
}

extension UInt64: ProbeWord {
    @inline(__always)
    fileprivate static func positions(of byte: UInt8, in table: ProbeTable) -> UInt64 {
        table.words[table.slot(of: byte)]
    }
}

extension UInt128: ProbeWord {
    @inline(__always)
    fileprivate static func positions(of byte: UInt8, in table: ProbeTable) -> UInt128 {
        let slot = table.slot(of: byte)
        return UInt128(table.words[slot &* 2]) | UInt128(table.words[slot &* 2 &+ 1]) &<< 64
    }
}
