@available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
extension Duration {
    /// This duration in (fractional) milliseconds, e.g. `.seconds(2).milliseconds == 2000`.
    public var milliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }
}
