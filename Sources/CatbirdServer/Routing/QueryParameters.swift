import Foundation

/// A request-target's query string as `(name, value)` pairs.
enum QueryParameters {
    /// The pairs in order, names and values percent-decoded (`+` read as a space, as HTML forms
    /// send it); a pair without `=` has the value "". Empty pairs (`a=1&&b=2`) are skipped.
    static func pairs(_ query: Substring) -> [(name: String, value: String)] {
        query.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (decode(parts[0]), parts.count > 1 ? decode(parts[1]) : "")
        }
    }

    private static func decode(_ raw: Substring) -> String {
        let spaced = raw.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}
