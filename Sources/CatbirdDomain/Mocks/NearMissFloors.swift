import CatbirdMatching

/// Which of one catalog's shared fields (``NearMissCatalog/sharedFields``) a request differs
/// from, each evaluated at most once per request, when a group or block that shares it is first
/// looked at (docs/matching.md#near-misses).
struct NearMissFloors {
    private enum Verdict: UInt8 {
        case unknown, differs, mayMatch
    }

    /// Per shared field (same indexes); empty until the first is evaluated.
    private var verdicts: [Verdict] = []

    /// How many of the fields in `fields` (a group's or block's) the request differs from, every
    /// field not yet known evaluated by `outcome` (``SharedField/outcome(headerValue:body:until:slice:)``;
    /// a regular expression stopped counts as not known to differ).
    mutating func differing(
        _ fields: NearMissCatalog.FieldRange, of catalog: NearMissCatalog, outcome: (SharedField) -> MatchOutcome
    ) -> Int {
        guard fields.start < fields.end else { return 0 }
        if verdicts.isEmpty { verdicts = Array(repeating: .unknown, count: catalog.sharedFields.count) }
        var differing = 0
        for index in catalog.sharedFieldIndexes[fields.range] {
            let field = Int(index)
            if verdicts[field] == .unknown {
                verdicts[field] = outcome(catalog.sharedFields[field]) == .notMatched ? .differs : .mayMatch
            }
            if verdicts[field] == .differs { differing += 1 }
        }
        return differing
    }
}
