extension Duration {
    /// This duration in whole nanoseconds (rounded toward zero), from one reading of
    /// `components` (each reading divides a 128-bit count of attoseconds: a hundred
    /// instructions or so). Saturates at `Int64`'s bounds, about 292 years.
    public var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return seconds < 0 ? .min : .max }
        let (total, overflowAgain) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
        return overflowAgain ? (seconds < 0 ? .min : .max) : total
    }
}
