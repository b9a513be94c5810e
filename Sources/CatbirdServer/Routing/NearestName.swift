import CatbirdMatching

/// The known name a mistyped one was probably meant to be, for a reason's "did you mean"
/// (docs/protocol.md#errors): an unknown JSON key (``UnknownWireKeys/suggestion(for:)``), an
/// unknown control route (``RouteTable/suggestion(method:path:)``).
enum NearestName {
    /// The candidate `text` was probably meant to be: one equal to it but for case, else the
    /// nearest by Levenshtein distance over UTF-8 bytes (the first in `candidates`' order on a
    /// tie) when it is at most 1 edit away for a text of up to 4 characters (`limt`, `ur`), 2 for
    /// a longer one (`stauts`); nil when none is that close. Texts are compared by their first
    /// 128 bytes (``EditDistanceProbe``'s most; names are far shorter).
    static func nearest(to text: String, among candidates: [String]) -> String? {
        let lowered = text.lowercased()
        if let same = candidates.first(where: { $0.lowercased() == lowered }) { return same }
        let probe = EditDistanceProbe(text, limit: comparedLength)
        let nearest = candidates.map { (name: $0, distance: probe.distance(to: Array($0.utf8.prefix(comparedLength)))) }
            .min { $0.distance < $1.distance }
        guard let nearest, nearest.distance <= (text.count <= 4 ? 1 : 2) else { return nil }
        return nearest.name
    }

    /// The bytes of a text compared.
    private static let comparedLength = 128
}
