extension CatbirdAction {
    /// Adds (or replaces) a mock: `.update(mock.pattern, mock.response)`.
    public static func add(_ mock: any CatbirdMockConvertible) -> CatbirdAction {
        .update(mock.pattern, mock.response)
    }

    /// Removes a mock: `.remove(mock.pattern)`.
    public static func remove(_ mock: any CatbirdMockConvertible) -> CatbirdAction {
        .remove(mock.pattern)
    }
}
