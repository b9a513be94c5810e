import Foundation

/// Reads numbers out of `JSONSerialization` results, which arrive as `Int`, `Double` or
/// `NSNumber` depending on the platform.
public enum JSONNumber {
    /// A JSON number that is a whole number, as an Int; nil for anything else (null included).
    public static func int(_ value: Any?) -> Int? {
        if let int = value as? Int { return int }
        if let number = value as? NSNumber { return Int(exactly: number.doubleValue) }
        return nil
    }

    /// A JSON number as a Double; nil for anything else.
    public static func double(_ value: Any?) -> Double? {
        (value as? NSNumber)?.doubleValue
    }
}
