import Foundation

extension Duration {
    /// The duration in seconds, as Foundation's `TimeInterval` (for `Date` arithmetic and
    /// `NSCondition.wait(until:)`).
    public var timeInterval: TimeInterval {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }
}
