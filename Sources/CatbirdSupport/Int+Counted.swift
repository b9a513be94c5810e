extension Int {
    /// This count and the noun that fits it, for messages and log lines: `1 entry`, `0 entries`,
    /// `3 entries` (only 1 takes the singular). `singular`, `plural`: the noun's two forms.
    public func counted(_ singular: String, _ plural: String) -> String {
        "\(self) \(self == 1 ? singular : plural)"
    }
}
