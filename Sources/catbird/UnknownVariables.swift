import CatbirdMatching

/// `CATBIRD_*` environment variables the server does not read: warned about at start-up, not
/// refused (README.md#configuration), so that a misspelt name (`CATBIRD_RECORD` for
/// `CATBIRD_RECORD_MODE`) shows in the log instead of leaving its mode silently off.
enum UnknownVariables {
    /// Variables that other parts of Catbird read, so often set in the server's environment
    /// too: the client's and the app's (`CATBIRD_URL`, `CATBIRD_PARALLEL_ID`), the client
    /// suite's (`CATBIRD_TEST_URL`), `deploy/xcode/start.sh`'s (`CATBIRD_BINARY`,
    /// `CATBIRD_SWIFT`, `CATBIRD_NO_NOTIFICATION`) and the benchmarks' (`CATBIRD_BIN`).
    static let otherParts: Set<String> = [
        "CATBIRD_URL", "CATBIRD_PARALLEL_ID", "CATBIRD_TEST_URL", "CATBIRD_BINARY", "CATBIRD_SWIFT",
        "CATBIRD_NO_NOTIFICATION", "CATBIRD_BIN",
    ]

    /// One warning per variable whose name starts with `CATBIRD_` (any case) that neither the
    /// server (``CommandLineOptions/environmentNames``) nor another part of Catbird
    /// (``otherParts``) reads, in the order of the names, each naming the server variable it
    /// was most likely meant to be (``closest(to:among:)``). The value is never shown (it may be
    /// a token).
    static func warnings(in environment: [String: String]) -> [String] {
        let known = CommandLineOptions.environmentNames.values.sorted()
        return environment.keys
            .filter { $0.uppercased().hasPrefix("CATBIRD_") && !known.contains($0) && !otherParts.contains($0) }
            .sorted()
            .map { name in
                "environment variable \(name) is not a Catbird server variable and is ignored "
                    + "(the closest is \(closest(to: name, among: known)); `catbird --help` lists them)"
            }
    }

    /// The name in `known` (non-empty) `name` was most likely meant to be: among the names whose
    /// part after `CATBIRD_` contains the other's or is contained in it (`RECORD` in
    /// `RECORD_MODE`), if any, else among all, the nearest by Levenshtein distance, compared
    /// without regard to case; the first in `known`'s order on a tie.
    static func closest(to name: String, among known: [String]) -> String {
        let word = String(name.uppercased().dropFirst("CATBIRD_".count))
        let containing = known.filter { candidate in
            let other = String(candidate.dropFirst("CATBIRD_".count))
            return !word.isEmpty && (other.contains(word) || word.contains(other))
        }
        let probe = EditDistanceProbe(name.uppercased(), limit: comparedLength)
        let candidates = containing.isEmpty ? known : containing
        let distances = candidates.map { (name: $0, distance: probe.distance(to: Array($0.utf8.prefix(comparedLength)))) }
        return distances.min { $0.distance < $1.distance }?.name ?? name
    }

    /// The bytes of a name compared (``EditDistanceProbe`` holds at most 128); the known
    /// names are far shorter.
    private static let comparedLength = 128
}
