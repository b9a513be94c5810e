import CatbirdSupport
import Foundation

/// Which fractional numbers of a control body its type refuses (a whole-number field such as
/// `delay`, `limit`, `since`, `maxRows`), found by asking the decoder, since Foundation's
/// `JSONDecoder` on Linux refuses `2.5` for an `Int` as "not valid JSON" with no coding path.
/// The body's type is the one source of which fields take fractions (a wait's `timeout`, SQL
/// `params`, a `jsonPath` pattern's `equalTo`): the reason names only numbers the type refuses
/// (tester finding T18B-F2: `{"timeout":0.25,"since":1.5}` was told `'since' (1.5), 'timeout'
/// (0.25) must be a whole number`, though `timeout` takes 0.25).
///
/// Each probe is one encode and decode of the parsed body (at most ``JSONBody/valueLimit``
/// values), only for a body already refused: first with every fractional number made whole
/// (towards zero), then, for each of the first ``probeLimit``, with that one put back.
struct RefusedFractions {
    /// One step into a parsed JSON value: an object's key or an array's index.
    typealias Step = JSONTextCheck.PathStep

    /// A fractional number of the body: where it is and how the reason shows it.
    struct Number {
        let path: [Step]
        let shown: String
        let value: Double
    }

    /// Numbers probed one by one at most: 8; those after them are named as refused unprobed.
    static let probeLimit = 8

    /// The numbers of `numbers` (in order) that `decodes` refuses in `root`, the body as
    /// `JSONSerialization` parsed it. `decodes` says whether a JSON text gets past the decoder's
    /// number check (false only for the error with no coding path that a refused fraction gets).
    /// When the body with every fraction made whole is still refused so, the cause is elsewhere
    /// too and every number is returned, as before the probes.
    static func refused(_ numbers: [Number], in root: Any, decodes: (Data) -> Bool) -> [Number] {
        guard !numbers.isEmpty else { return [] }
        var whole = root
        for number in numbers { whole = replacing(number.path[...], in: whole, with: NSNumber(value: number.value.rounded(.towardZero))) }
        guard let wholeText = text(whole), decodes(wholeText) else { return numbers }
        var refused: [Number] = []
        for (index, number) in numbers.enumerated() {
            guard index < probeLimit else {
                refused.append(number)
                continue
            }
            let probe = replacing(number.path[...], in: whole, with: NSNumber(value: number.value))
            if let probeText = text(probe), !decodes(probeText) { refused.append(number) }
        }
        return refused
    }

    private static func text(_ value: Any) -> Data? {
        try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed])
    }

    /// `value` with what `path` leads to replaced by `replacement`.
    private static func replacing(_ path: ArraySlice<Step>, in value: Any, with replacement: Any) -> Any {
        guard let step = path.first else { return replacement }
        switch step {
        case let .key(key):
            guard var object = value as? [String: Any], let inner = object[key] else { return value }
            object[key] = replacing(path.dropFirst(), in: inner, with: replacement)
            return object
        case let .index(index):
            guard var array = value as? [Any], array.indices.contains(index) else { return value }
            array[index] = replacing(path.dropFirst(), in: array[index], with: replacement)
            return array
        }
    }
}
