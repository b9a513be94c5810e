import Foundation

/// Retention durations as `--tenant-ttl`, `--journal-max-age` and their `CATBIRD_*` variables
/// write them: a whole number and a unit, `s`, `m`, `h` or `d` (`90s`, `30m`, `12h`, `7d`);
/// `0` (with or without a unit: `0s`, `0d`) or `off` for no limit.
public enum RetentionDuration {
    /// Seconds per unit.
    private static let units: [(Character, Int64)] = [("s", 1), ("m", 60), ("h", 3600), ("d", 86_400)]

    /// The duration, `.some(nil)` for `0`, `0s` … / `off` (no limit), or nil when `text` is not of that form.
    public static func parse(_ text: String) -> Duration?? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        if trimmed == "off" || trimmed == "0" { return .some(nil) }
        guard let unit = trimmed.last, let factor = units.first(where: { $0.0 == unit })?.1,
              let number = Int64(trimmed.dropLast()), number >= 0,
              ("0"..."9").contains(trimmed.first ?? " ") else { return nil }
        if number == 0 { return .some(nil) }  // `0s` as `0`: no limit
        let (seconds, overflow) = number.multipliedReportingOverflow(by: factor)
        guard !overflow, seconds <= maxSeconds else { return nil }
        return .some(.seconds(seconds))
    }

    /// The longest duration taken: 36,500 days (100 years), `3153600000s`; `off` is no limit.
    public static let maxSeconds: Int64 = 100 * 365 * 86_400

    /// Whether `text` has the form (a whole number and a unit) but is longer than
    /// ``maxSeconds``: its refusal says so, not that the form is wrong (tester finding
    /// tester34b-F5: `99999d` was refused as "not a whole number with s, m, h or d").
    public static func isTooLong(_ text: String) -> Bool {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard let unit = trimmed.last, units.contains(where: { $0.0 == unit }), !trimmed.dropLast().isEmpty,
              trimmed.dropLast().allSatisfy({ ("0"..."9").contains($0) })
        else { return false }
        return parse(text) == nil
    }

    /// The shortest exact form: `7d`, `12h`, `90s`.
    public static func format(_ duration: Duration) -> String {
        let seconds = duration.components.seconds
        for (unit, factor) in units.reversed() where seconds % factor == 0 && seconds >= factor {
            return "\(seconds / factor)\(unit)"
        }
        return "\(seconds)s"
    }
}
