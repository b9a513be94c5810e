import CatbirdMatching
@_spi(Server) import CatbirdWire

extension UnknownWireKeys {
    /// The reason for the 400, each unknown key followed by the known key it was probably
    /// meant to be (``suggestion(for:)``): `unknown key "limt" in the JSON body (did you mean
    /// "limit"?); the keys here are …` (docs/protocol.md#errors).
    /// WireMock's `fixedDelayMilliseconds` gets the unit said too (tester finding try10a F1: the
    /// value kept under `delay` made a 300 ms delay one of 300 seconds).
    var reasonWithSuggestions: String {
        let reason = reason(suggesting: suggestion(for:))
        guard unknown.contains(where: { $0.lowercased() == "fixeddelaymilliseconds" }), known.contains("delay") else { return reason }
        return reason + "; 'delay' is whole seconds, not milliseconds: WireMock's fixedDelayMilliseconds 300 is \"delay\": 0 "
            + "(no delay) here, 2000 is \"delay\": 2"
    }

    /// The known key `key` was probably meant to be: one equal to it but for case, else the
    /// nearest by Levenshtein distance (the first in documented order on a tie) when it is
    /// at most 1 edit away for a key of up to 4 characters (`limt`, `ur`), 2 for a longer one
    /// (`stauts`); nil when none is that close.
    func suggestion(for key: String) -> String? {
        let lowered = key.lowercased()
        if let same = known.first(where: { $0.lowercased() == lowered }) { return same }
        if let ours = Self.wireMockNames[lowered], known.contains(ours) { return ours }
        let probe = EditDistanceProbe(key, limit: Self.comparedLength)
        let nearest = known.map { (key: $0, distance: probe.distance(to: Array($0.utf8.prefix(Self.comparedLength)))) }
            .min { $0.distance < $1.distance }
        guard let nearest, nearest.distance <= (key.count <= 4 ? 1 : 2) else { return nil }
        return nearest.key
    }

    /// WireMock's names of what Catbird calls otherwise (lowercased), for users bringing their
    /// mappings (tester finding try9a F13): `fixedDelayMilliseconds` is `delay` (whole
    /// seconds here), `jsonBody`/`base64Body` are `body` (base64), `times` is `limit`,
    /// `urlPath`/`urlPattern`/`urlPathPattern`/`urlPathTemplate` are `url`, `bodyPatterns` is `body`.
    private static let wireMockNames = [
        "fixeddelaymilliseconds": "delay", "jsonbody": "body", "base64body": "body", "times": "limit", "urlpath": "url",
        "urlpattern": "url", "urlpathpattern": "url", "urlpathtemplate": "url", "bodypatterns": "body",
    ]

    /// The bytes of a key compared (``EditDistanceProbe`` holds at most 128); the known keys
    /// are far shorter.
    private static let comparedLength = 128
}
