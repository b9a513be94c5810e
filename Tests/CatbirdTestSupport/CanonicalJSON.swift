import Foundation

/// JSON text with sorted keys, for comparing JSON documents regardless of key order.
public func canonicalJSON(_ data: Data) throws -> String {
    let object = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
    return try canonicalJSON(object: object)
}

public func canonicalJSON(object: Any) throws -> String {
    let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .fragmentsAllowed])
    return String(decoding: data, as: UTF8.self)
}
