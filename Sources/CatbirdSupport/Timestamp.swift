import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Catbird's timestamps, as stored in the database and sent on the wire: UTC, ISO 8601 with
/// milliseconds, `2026-11-29T18:01:27.123Z` (sorts as text in time order).
public enum Timestamp {
    /// The current time (the system's real-time clock), formatted. Each thread reuses its last
    /// text within the same millisecond (every journaled request asks: at tens of thousands of
    /// requests per second most share their worker's previous text).
    public static func now() -> String {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        let milliseconds = Int(spec.tv_sec) * 1000 + Int(spec.tv_nsec) / 1_000_000
        return lastFormatted.with { last in
            if last.milliseconds != milliseconds { last = (milliseconds, string(millisecondsSince1970: milliseconds)) }
            return last.text
        }
    }

    /// Each thread's last ``now()``: its millisecond and text.
    private static let lastFormatted = PerThreadMemo<(milliseconds: Int, text: String)> { (Int.min, "") }

    /// The date of `text` (`YYYY-MM-DDTHH:MM:SS[.fraction]Z`, or with an RFC 3339 offset
    /// `±HH:MM` in place of `Z`: `2026-12-02T03:55:14.217717+00:00`, what Python's
    /// `datetime.isoformat()` writes, is the same instant as `…Z`; `+01:00` is an hour earlier
    /// in UTC), or nil when it is not of that form or names a day the calendar does not have
    /// (`2026-02-30`, `2025-02-29`, `2026-04-31`: the day is checked against its month's length
    /// in the proleptic Gregorian calendar). `T` and `Z` may be lower case (RFC 3339 §5.6's
    /// note; tester finding T13-F7).
    public static func date(from text: String) -> Date? {
        guard let parsed = instant(text) else { return nil }
        let fraction = Double(parsed.fraction.value) / Double(powerOfTen(parsed.fraction.digits))
        return Date(timeIntervalSince1970: Double(parsed.seconds) + fraction)
    }

    /// The instant `text` names (read as ``date(from:)`` reads it) in whole milliseconds since
    /// 1970-01-01T00:00:00Z, rounded up when it has digits past the millisecond: `…52.5971Z` is
    /// 0.1 ms after `…52.597Z`, so it gives the millisecond of `…52.598Z`. Exact, from the digits:
    /// a `Date`'s `Double` holds today's time to about a quarter of a microsecond, so
    /// `…52.5970000001Z` would read as `…52.597Z`. A journal time (whole milliseconds) `t` is
    /// then at or after `text` exactly when `t >=` this, and before it exactly when `t <` this
    /// (find's `from` and `until`, docs/protocol.md#find; tester finding T13B-F4). Nil as
    /// ``date(from:)``.
    public static func millisecondsRoundedUp(from text: String) -> Int? {
        guard let (seconds, fraction) = instant(text) else { return nil }
        guard fraction.digits > 3 else { return seconds * 1000 + fraction.value * powerOfTen(3 - fraction.digits) }
        // The digits past the millisecond: any but zeros round up.
        let (milliseconds, past) = fraction.value.quotientAndRemainder(dividingBy: powerOfTen(fraction.digits - 3))
        return seconds * 1000 + milliseconds + (past == 0 ? 0 : 1)
    }

    /// The digits after a timestamp's seconds, read once: `value` is the number they write,
    /// `digits` how many there are (0 when there is no fraction, else 1 to 18; past 18, the
    /// first 18 and a 1 added for any later digit other than 0): `.0597` is (597, 4), 0.0597 s.
    private typealias Fraction = (value: Int, digits: Int)

    /// `text` (as ``date(from:)`` reads it) as whole seconds since 1970 in UTC and its fraction
    /// of a second, or nil.
    private static func instant(_ text: String) -> (seconds: Int, fraction: Fraction)? {
        var bytes = Array(text.utf8)
        if bytes.count > 10, bytes[10] == UInt8(ascii: "t") { bytes[10] = UInt8(ascii: "T") }
        if bytes.last == UInt8(ascii: "z") { bytes[bytes.count - 1] = UInt8(ascii: "Z") }
        var offsetSeconds = 0
        if bytes.count >= 25, bytes[bytes.count - 3] == UInt8(ascii: ":"),
           bytes[bytes.count - 6] == UInt8(ascii: "+") || bytes[bytes.count - 6] == UInt8(ascii: "-") {
            guard let hours = number(bytes[(bytes.count - 5)..<(bytes.count - 3)]), let minutes = number(bytes[(bytes.count - 2)...]),
                  hours < 24, minutes < 60 else { return nil }
            offsetSeconds = (hours * 3_600 + minutes * 60) * (bytes[bytes.count - 6] == UInt8(ascii: "+") ? 1 : -1)
            bytes.replaceSubrange((bytes.count - 6)..., with: [UInt8(ascii: "Z")])
        }
        guard let utc = utcInstant(bytes) else { return nil }
        return (utc.seconds - offsetSeconds, utc.fraction)
    }

    /// ``instant(_:)`` of `YYYY-MM-DDTHH:MM:SS[.fraction]Z`.
    private static func utcInstant(_ bytes: [UInt8]) -> (seconds: Int, fraction: Fraction)? {
        // YYYY-MM-DDTHH:MM:SS is 19 bytes; then an optional fraction, then Z.
        guard bytes.count >= 20, bytes.last == UInt8(ascii: "Z"),
            bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
            let year = number(bytes[0..<4]), let month = number(bytes[5..<7]), let day = number(bytes[8..<10]),
            let hour = number(bytes[11..<13]), let minute = number(bytes[14..<16]), let second = number(bytes[17..<19]),
            (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var fraction: Fraction = (0, 0)
        let rest = bytes[19..<(bytes.count - 1)]
        if !rest.isEmpty {
            // Any number of digits (RFC 3339's `time-secfrac`: "." 1*DIGIT; tester finding
            // tester28a-F3: 19 were refused as "not a UTC time"): the first 18 are read, and
            // one at the 18th place stands for any other digit than 0 after them, so a time
            // rounded up to its millisecond still is.
            let digits = rest.dropFirst()
            let read = digits.prefix(18)
            guard rest.first == UInt8(ascii: "."), var value = number(read),
                  digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
            else { return nil }
            if digits.dropFirst(read.count).contains(where: { $0 != UInt8(ascii: "0") }) { value += 1 }
            fraction = (value, read.count)
        }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        return (days * 86_400 + hour * 3_600 + minute * 60 + second, fraction)
    }

    /// `date` as `YYYY-MM-DDTHH:MM:SS.mmmZ` (rounded to the millisecond).
    public static func string(from date: Date) -> String {
        string(millisecondsSince1970: Int((date.timeIntervalSince1970 * 1000).rounded()))
    }

    /// `milliseconds` since 1970-01-01T00:00:00Z as `YYYY-MM-DDTHH:MM:SS.mmmZ` (years 0–9999;
    /// others are written with as many digits as they need). Written digit by digit into one
    /// buffer: every journaled request formats its arrival time, so this makes one allocation.
    public static func string(millisecondsSince1970 milliseconds: Int) -> String {
        let (days, dayMilliseconds) = floorDivision(milliseconds, 86_400_000)
        let (year, month, day) = civilDate(daysSinceEpoch: days)
        guard (0...9999).contains(year) else {
            let seconds = dayMilliseconds / 1000
            return "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))T\(padded(seconds / 3600, 2)):\(padded(seconds / 60 % 60, 2))"
                + ":\(padded(seconds % 60, 2)).\(padded(dayMilliseconds % 1000, 3))Z"
        }
        let seconds = dayMilliseconds / 1000
        return String(unsafeUninitializedCapacity: 24) { buffer in
            var index = 0
            func put(_ value: Int, digits: Int) {
                var divisor = 1
                for _ in 1..<digits { divisor *= 10 }
                var rest = value
                while divisor > 0 {
                    buffer[index] = UInt8(ascii: "0") + UInt8(rest / divisor)
                    rest %= divisor
                    divisor /= 10
                    index += 1
                }
            }
            func put(_ byte: Unicode.Scalar) {
                buffer[index] = UInt8(ascii: byte)
                index += 1
            }
            put(year, digits: 4); put("-"); put(month, digits: 2); put("-"); put(day, digits: 2); put("T")
            put(seconds / 3600, digits: 2); put(":"); put(seconds / 60 % 60, digits: 2); put(":")
            put(seconds % 60, digits: 2); put("."); put(dayMilliseconds % 1000, digits: 3); put("Z")
            return index
        }
    }

    /// Decodes a timestamp string.
    ///
    /// - Throws: `DecodingError` when the value is not a string of the server's form.
    public static func decode<Key: CodingKey>(_ key: Key, from container: KeyedDecodingContainer<Key>) throws -> Date {
        let text = try container.decode(String.self, forKey: key)
        guard let date = date(from: text) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: container, debugDescription: "\(text) is not an ISO 8601 UTC timestamp such as 2026-11-29T18:01:27.123Z")
        }
        return date
    }

    /// The number of days in `month` (1…12) of `year`: February has 29 in a leap year (one
    /// divisible by 4, except centuries not divisible by 400).
    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// The decimal number written by `digits` (ASCII digits only, at most 18).
    private static func number(_ digits: ArraySlice<UInt8>) -> Int? {
        guard !digits.isEmpty, digits.count <= 18 else { return nil }
        var value = 0
        for byte in digits {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    /// 10 to the power `exponent` (0 to 18).
    private static func powerOfTen(_ exponent: Int) -> Int {
        (0..<exponent).reduce(1) { power, _ in power * 10 }
    }

    private static func padded(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    private static func floorDivision(_ value: Int, _ divisor: Int) -> (quotient: Int, remainder: Int) {
        let remainder = ((value % divisor) + divisor) % divisor
        return ((value - remainder) / divisor, remainder)
    }

    // The calendar arithmetic counts years from 1 March, so that the leap day ends a year;
    // an era is 400 years (146097 days); day 0 of era 0 is 0000-03-01, 719468 days before 1970-01-01.

    /// Days from 1970-01-01 to the given proleptic Gregorian date.
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let marchYear = month <= 2 ? year - 1 : year
        let era = floorDivision(marchYear, 400).quotient
        let yearOfEra = marchYear - era * 400
        let dayOfYear = (153 * ((month + 9) % 12) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date `days` after 1970-01-01.
    private static func civilDate(daysSinceEpoch days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = floorDivision(shifted, 146_097).quotient
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
