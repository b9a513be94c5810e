// The app-side helper; see CatbirdAppSupport.swift.
