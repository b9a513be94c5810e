// The wire types (RequestPattern, PatternMatch, ResponseMock, CatbirdAction, CatbirdMock,
// CatbirdRequest…) live in CatbirdWire, shared with the server; `import CatbirdAPI` keeps
// giving them, under the same names, as in Catbird 0.11.
@_exported import CatbirdWire
