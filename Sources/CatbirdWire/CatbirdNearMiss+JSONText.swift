import CatbirdSupport

// The near misses' wire shapes written by hand: every unmatched request's 404 body and journal
// entry carry them, and `JSONEncoder` cost more than the rest of a miss. The texts are the
// `Codable` shapes (keys sorted, as the server's encoder writes them); the tests decode them
// back with `JSONDecoder` and compare.

extension PatternMatch {
    /// `{"kind":"equal","value":"/api/users"}`.
    public var jsonText: String {
        #"{"kind":\#(JSONText.string(kind.rawValue)),"value":\#(JSONText.string(value))}"#
    }
}

extension BodyPattern {
    /// `{"equalTo":7,"kind":"jsonPath","value":"$.id"}`; `equalTo` only when set.
    public var jsonText: String {
        let equal = equalTo.map { #""equalTo":\#($0.jsonText),"# } ?? ""
        return #"{\#(equal)"kind":\#(JSONText.string(kind.rawValue)),"value":\#(JSONText.string(value))}"#
    }
}

extension RequestPattern {
    /// `{"body":…,"headers":{…},"method":"GET","url":{…}}`; `headers` always, `body` only when
    /// set (``encode(to:)``'s shape).
    public var jsonText: String {
        let body = self.body.map { #""body":\#($0.jsonText),"# } ?? ""
        let headers = self.headers.sorted { $0.key < $1.key }.map { "\(JSONText.string($0.key)):\($0.value.jsonText)" }
        return #"{\#(body)"headers":{\#(headers.joined(separator: ","))},"method":\#(JSONText.string(method.rawValue)),"url":\#(url.jsonText)}"#
    }
}

extension CatbirdNearMiss.Field {
    /// `{"actual":"/api/usres","expected":"equal \"/api/users\"","field":"url","verdict":"differs"}`;
    /// `actual` and `name` only when set.
    public var jsonText: String {
        let actual = self.actual.map { #""actual":\#(JSONText.string($0)),"# } ?? ""
        let name = self.name.map { #","name":\#(JSONText.string($0))"# } ?? ""
        return #"{\#(actual)"expected":\#(JSONText.string(expected)),"field":\#(JSONText.string(field))\#(name),"verdict":"\#(verdict.rawValue)"}"#
    }
}

extension CatbirdNearMiss {
    /// `{"distance":0.4,"fields":[…],"mockId":7,"pattern":{…},"position":1,"tenant":"s1"}`.
    public var jsonText: String {
        let fields = self.fields.map(\.jsonText).joined(separator: ",")
        return #"{"distance":\#(JSONValue.number(distance).jsonText),"fields":[\#(fields)],"mockId":\#(mockId),"pattern":\#(pattern.jsonText),"position":\#(position),"tenant":\#(JSONText.string(tenant))}"#
    }

    /// Near misses as a JSON array (the journal's `near_misses` column).
    public static func jsonText(_ nearMisses: [CatbirdNearMiss]) -> String {
        "[" + nearMisses.map(\.jsonText).joined(separator: ",") + "]"
    }
}

extension CatbirdNotFoundBody {
    /// The 404 body, with `nearMisses` given as its JSON text (``CatbirdNearMiss/jsonText(_:)``,
    /// built once for the body and the journal); `matchingTenants` only when set.
    public func jsonText(nearMissesJSON: String) -> String {
        let matching = matchingTenants.map { #""matchingTenants":[\#($0.map(JSONText.string).joined(separator: ","))],"# } ?? ""
        return #"{"error":\#(error),\#(matching)"nearMisses":\#(nearMissesJSON),"reason":\#(JSONText.string(reason)),"tenant":\#(JSONText.string(tenant))}"#
    }
}
