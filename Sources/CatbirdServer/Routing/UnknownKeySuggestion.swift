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

    /// The known key `key` was probably meant to be: the one WireMock's name `key` stands for
    /// (``wireMockNames``), else the nearest known key (``NearestName/nearest(to:among:)``:
    /// equal but for case, or 1 or 2 edits away); nil when none is that close.
    func suggestion(for key: String) -> String? {
        if let ours = Self.wireMockNames[key.lowercased()], known.contains(ours) { return ours }
        return NearestName.nearest(to: key, among: known)
    }

    /// WireMock's names of what Catbird calls otherwise (lowercased), for users bringing their
    /// mappings (tester finding try9a F13): `fixedDelayMilliseconds` is `delay` (whole
    /// seconds here), `jsonBody`/`base64Body` are `body` (base64), `times` is `limit`,
    /// `urlPath`/`urlPattern`/`urlPathPattern`/`urlPathTemplate` are `url`, `bodyPatterns` is `body`.
    private static let wireMockNames = [
        "fixeddelaymilliseconds": "delay", "jsonbody": "body", "base64body": "body", "times": "limit", "urlpath": "url",
        "urlpattern": "url", "urlpathpattern": "url", "urlpathtemplate": "url", "bodypatterns": "body",
    ]
}
