import CSQLite
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension DatabaseFileLock {
    /// The error ``truncated()`` makes: `SQLITE_CORRUPT` with an extended code of Catbird's own
    /// (SQLite's go up to 3), as ``movedCode`` is SQLite's `SQLITE_READONLY_DBMOVED`. A file
    /// that lost pages is corrupt from then on, whatever is written afterwards.
    public static let truncatedCode: Int32 = SQLITE_CORRUPT | (100 << 8)

    /// Whether `error` is ``moved()``'s or ``truncated()``'s: the database file deleted, moved,
    /// replaced or truncated under the server. Waiting does not end it, so a background loop
    /// that meets it on every pass says so once, not every pass, and the journal writer drops
    /// a round that fails so after one attempt.
    public static func isFileFault(_ error: any Error) -> Bool {
        guard let code = (error as? SQLiteError)?.extendedCode else { return false }
        return code == movedCode || code == truncatedCode
    }

    /// The locked file's sizes (``sizes``): the largest seen since ``watchSize()`` (nil before),
    /// and the first shrink seen (kept: the file stays corrupt even if it grows again).
    struct SizeWatch: Sendable {
        var largest: Int64?
        var shrink: Truncation?
    }

    /// A truncation seen: the file was `size` bytes, shorter than the `largest` it had had.
    public struct Truncation: Sendable, Equatable {
        /// The file's size when the truncation was seen.
        public let size: Int64
        /// The largest size seen before.
        public let largest: Int64
    }

    /// Starts comparing the file's size with the largest it had (``truncated()``), from its size
    /// now. Call once the file is open and migrated, and only when nothing shrinks it while it is
    /// served: SQLite never makes a database file shorter except by `VACUUM` or auto-vacuum (a
    /// checkpoint truncates it to its page count, which only those lower; deleted rows' pages
    /// go to the free list), and the server runs neither (`PRAGMA auto_vacuum` is 0, NONE); a
    /// `VACUUM` another process runs leaves a file its header counts whole, which is not a
    /// truncation (``isWholeDatabase(size:)``).
    public func watchSize() {
        guard let size = currentSize() else { return }
        sizes.withLock { $0.largest = max($0.largest ?? 0, size) }
    }

    /// The truncation seen by ``truncated()``, if any (nil before ``watchSize()``).
    public var truncation: Truncation? {
        sizes.withLock { $0.shrink }
    }

    /// Whether the locked file is shorter than the largest size it had since ``watchSize()``
    /// (`: > catbird.sqlite`, `truncate -s`, a copy tool that truncates before writing): nil
    /// while it is not (and before ``watchSize()``, after ``release()``); otherwise an
    /// `SQLiteError` with ``truncatedCode`` saying what it is and what it had. Once seen, it is
    /// said from then on: the pages cut off are lost, and writing on would only mix the
    /// server's pages into what is left. The file then keeps its identity (``moved()`` sees
    /// nothing), so without this a control change after `: > catbird.sqlite` got 201 and was
    /// lost (tester finding tester21b-F13). One `fstat`, made with ``moved()``'s before each write,
    /// under the lock of the sizes seen.
    public func truncated() -> SQLiteError? {
        let seen = sizes.withLock { watch -> Truncation? in
            // Read under the lock: reads then come in order, and a file that only grows never
            // reads smaller than a size recorded before. Read before it, a size could be
            // compared after another thread had recorded the larger size a checkpoint had grown
            // the file to meanwhile, and a healthy file was declared truncated for good (tester
            // finding tester32b-F1: "2945024 bytes, shorter than the 3026944 bytes it had", a
            // size the file had passed 1 ms before, during tenant churn on a loaded machine).
            let size = currentSize()
            if watch.shrink == nil, let largest = watch.largest, let size {
                if size < largest && !isWholeDatabase(size: size) {
                    watch.shrink = Truncation(size: size, largest: largest)
                } else {
                    watch.largest = size
                }
            }
            return watch.shrink
        }
        guard let seen else { return nil }
        return SQLiteError(
            code: Self.truncatedCode,
            message: "\(path) is \(seen.size) bytes, shorter than the \(seen.largest) bytes it had (the file was "
                + "\(seen.size == 0 ? "emptied" : "truncated"): the pages cut off are lost)")
    }

    /// Whether the file's header says the database is exactly `size` bytes: a valid header
    /// (`SQLite format 3`, its in-header database size valid by SQLite's file format, section
    /// 1.3.7: "version-valid-for" equal to the change counter) whose page count times page
    /// size is `size`. A file made shorter by SQLite itself so (a `VACUUM` another process ran
    /// on it: `sqlite3 catbird.sqlite VACUUM`, safe while the server runs, whose checkpoint
    /// truncates the file to its new page count) lost nothing; one cut short by anything else
    /// (`truncate -s`, `: >`) has a header that counts more pages than it holds, or none (tester
    /// finding tester46b-F8: an online VACUUM was called a truncation, the server degraded for
    /// good, and told the operator to restore a copy of an intact file).
    private func isWholeDatabase(size: Int64) -> Bool {
        guard size >= 100 else { return false }
        var header = [UInt8](repeating: 0, count: 100)
        let read = header.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, 100, 0) }
        guard read == 100, header[0..<16].elementsEqual(Array("SQLite format 3\0".utf8)) else { return false }
        func bigEndian(_ offset: Int, _ count: Int) -> Int64 {
            header[offset..<offset + count].reduce(0) { $0 << 8 | Int64($1) }
        }
        let encodedPageSize = bigEndian(16, 2)
        let pageSize = encodedPageSize == 1 ? 65_536 : encodedPageSize
        let changeCounter = bigEndian(24, 4)
        let pageCount = bigEndian(28, 4)
        let validFor = bigEndian(92, 4)
        return pageSize >= 512 && pageCount > 0 && validFor == changeCounter && pageCount * pageSize == size
    }

    /// The locked file's size in bytes (`fstat` of the held descriptor, so also while its path
    /// names another file or none); nil after ``release()`` or when `fstat` fails.
    public func currentSize() -> Int64? {
        guard !released.load(ordering: .acquiring) else { return nil }
        var held = stat()
        guard fstat(descriptor, &held) == 0 else { return nil }
        return Int64(held.st_size)
    }
}
