import Foundation

/// The media ranges of an `Accept` header in preference order (RFC 9110 §12.5.1): by `q`
/// weight, highest first, ties in the order written; ranges with `q=0` are left out.
public enum AcceptHeader {
    /// The ranges of `value`, e.g. `text/html;q=0.5, application/json` →
    /// `["application/json", "text/html"]`. Parameters other than `q` are dropped; a malformed `q`
    /// counts as 1.
    public static func preferredTypes(_ value: String) -> [String] {
        var ranges: [(type: String, weight: Double, order: Int)] = []
        for (order, element) in value.split(separator: ",").enumerated() {
            let parts = element.split(separator: ";")
            guard let first = parts.first else { continue }
            let type = first.trimmingCharacters(in: .whitespaces).lowercased()
            guard !type.isEmpty else { continue }
            var weight = 1.0
            for parameter in parts.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                if pair.count == 2, pair[0].lowercased() == "q", let q = Double(pair[1]), (0...1).contains(q) { weight = q }
            }
            if weight > 0 { ranges.append((type, weight, order)) }
        }
        return ranges.sorted { $0.weight != $1.weight ? $0.weight > $1.weight : $0.order < $1.order }.map(\.type)
    }

    /// The first `limit` distinct ranges of ``preferredTypes(_:)`` (a range written twice counts
    /// once, where it ranks first).
    public static func preferredTypes(_ value: String, distinctAtMost limit: Int) -> [String] {
        var seen = Set<String>()
        var distinct: [String] = []
        for type in preferredTypes(value) where seen.insert(type).inserted {
            distinct.append(type)
            if distinct.count == limit { break }
        }
        return distinct
    }
}
