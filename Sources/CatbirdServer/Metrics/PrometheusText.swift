import Foundation

/// Writes metrics in the Prometheus text exposition format, version 0.0.4: per metric a
/// `# HELP` and a `# TYPE` line, then one `name{label="value",…} number` line per sample.
/// The rules kept here: label values escape `\`, `"` and newline; help text escapes `\` and
/// newline; histograms give cumulative `_bucket{le="…"}` samples ending with `le="+Inf"`,
/// then `_sum` and `_count`. The format is described in docs/operations.md.
struct PrometheusText {
    /// The Content-Type of the text format.
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    private(set) var text = ""

    enum Kind: String {
        case counter, gauge, histogram
    }

    /// Starts a metric: its `# HELP` and `# TYPE` lines.
    mutating func metric(_ name: String, _ kind: Kind, help: String) {
        let escaped = help.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
        text += "# HELP \(name) \(escaped)\n# TYPE \(name) \(kind.rawValue)\n"
    }

    /// One sample line of the metric last started (or of its `_bucket`, `_sum`, `_count`).
    mutating func sample(_ name: String, labels: KeyValuePairs<String, String> = [:], _ value: Double) {
        text += name
        if !labels.isEmpty {
            text += "{" + labels.map { "\($0.key)=\"\(Self.escapeLabel($0.value))\"" }.joined(separator: ",") + "}"
        }
        text += " \(Self.number(value))\n"
    }

    mutating func sample(_ name: String, labels: KeyValuePairs<String, String> = [:], _ value: Int) {
        sample(name, labels: labels, Double(value))
    }

    /// A whole histogram: `bounds` ascending, `atMost[i]` the observations ≤ `bounds[i]`
    /// (already cumulative), `count` all observations, `sum` their total.
    mutating func histogram(_ name: String, help: String, bounds: [Double], atMost: [Int], count: Int, sum: Double) {
        metric(name, .histogram, help: help)
        for (bound, observations) in zip(bounds, atMost) {
            sample("\(name)_bucket", labels: ["le": Self.number(bound)], observations)
        }
        sample("\(name)_bucket", labels: ["le": "+Inf"], count)
        sample("\(name)_sum", sum)
        sample("\(name)_count", count)
    }

    private static func escapeLabel(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }

    /// Whole numbers without a fraction (`42`), others as Swift prints a Double (`0.0005`).
    private static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }
}
