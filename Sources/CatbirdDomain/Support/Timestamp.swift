#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// UTC wall-clock times as stored in the database: ISO 8601 with milliseconds,
/// e.g. `2026-11-29T18:01:27.123Z` (sorts as text in time order).
public enum Timestamp {
    /// The current time, formatted.
    public static func now() -> String {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return format(seconds: Int(spec.tv_sec), milliseconds: Int(spec.tv_nsec / 1_000_000))
    }

    /// Formats `seconds` since the Unix epoch plus `milliseconds` (0...999).
    public static func format(seconds: Int, milliseconds: Int) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        var text = ""
        text.reserveCapacity(24)
        append(Int(parts.tm_year) + 1900, width: 4, to: &text)
        text += "-"
        append(Int(parts.tm_mon) + 1, width: 2, to: &text)
        text += "-"
        append(Int(parts.tm_mday), width: 2, to: &text)
        text += "T"
        append(Int(parts.tm_hour), width: 2, to: &text)
        text += ":"
        append(Int(parts.tm_min), width: 2, to: &text)
        text += ":"
        append(Int(parts.tm_sec), width: 2, to: &text)
        text += "."
        append(milliseconds, width: 3, to: &text)
        text += "Z"
        return text
    }

    private static func append(_ value: Int, width: Int, to text: inout String) {
        let digits = String(value)
        if digits.count < width { text += String(repeating: "0", count: width - digits.count) }
        text += digits
    }
}
