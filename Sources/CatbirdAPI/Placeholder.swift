// The Catbird client library; see Catbird.swift.
