import Dispatch

@available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
extension Duration {
    /// This duration as a dispatch interval for timers: negative counts as zero, and anything
    /// over about 68 years (`Int32.max` seconds) saturates there instead of overflowing.
    public var dispatchInterval: DispatchTimeInterval {
        let (seconds, attoseconds) = components
        guard seconds < Int64(Int32.max) else { return .seconds(Int(Int32.max)) }
        guard seconds >= 0, attoseconds >= 0 else { return .nanoseconds(0) }
        return .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
    }
}
