/// A number of seconds as an option writes it: decimal digits with an optional fraction
/// (`30`, `0.5`, `.25`, `30s`), nothing else: no sign, exponent, hexadecimal form, `inf` or
/// `nan`, which `Double(_:)` takes (tester finding tester44a-F4: `--upstream-timeout 0x10` was 16
/// seconds, `1e-9` started a server).
enum DecimalSeconds {
    /// `text` (an optional trailing `s`) in whole milliseconds, rounded up so that a positive
    /// value is at least 1 ms (tester finding tester44a-F4: `0.0001` was truncated to 0 ms,
    /// which libcurl reads as no timeout at all); nil when `text` is not such a number or
    /// holds more than `maxSeconds`.
    static func milliseconds(_ text: String, maxSeconds: Int) -> Int? {
        let number = text.lowercased().hasSuffix("s") ? text.dropLast() : Substring(text)
        let parts = number.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        // Leading zeros say nothing (tester finding tester45a-F9: `000000000030` was refused as
        // over the maximum).
        let whole = parts[0].drop { $0 == "0" }, fraction = parts.count > 1 ? parts[1] : ""
        let isDigits: (Substring) -> Bool = { $0.utf8.allSatisfy { (0x30...0x39).contains($0) } }
        guard !(parts[0].isEmpty && fraction.isEmpty), isDigits(parts[0]), isDigits(fraction), whole.count <= 10 else { return nil }
        let seconds = Int(whole) ?? 0
        let milliseconds = Int(fraction.prefix(3).padding(toLength: 3, withPad: "0", startingAt: 0))!
        let roundsUp = fraction.dropFirst(3).contains { $0 != "0" }
        let total = seconds * 1000 + milliseconds + (roundsUp ? 1 : 0)
        return total <= maxSeconds * 1000 ? total : nil
    }
}
