import CatbirdWire

extension PatternMatch {
    /// Whether this pattern matches every subject without looking at it: a `regexp` whose
    /// value is empty (docs/matching.md#pattern-kinds; ICU on Linux refuses to compile `""`,
    /// while an empty search succeeds everywhere on Apple platforms). The one place the rule is
    /// decided: ``CompiledPatternMatch`` compiles nothing for it, and journal counts leave the
    /// url out of their SQL condition.
    public var matchesEverything: Bool {
        kind == .regexp && value.isEmpty
    }
}
