/// Sizes as `CATBIRD_MAX_BODY_SIZE` writes them (Catbird 0.11 / Vapor): plain bytes (`1048576`),
/// or a number with `b`, `kb`, `mb`, `gb` (powers of 1024, case-insensitive): `50mb`, `1kb`.
enum ByteSize {
    /// The units a size may end in, with their factors, longest suffix first.
    static let units: [(suffix: String, factor: Int)] = [("gb", 1 << 30), ("mb", 1 << 20), ("kb", 1 << 10), ("b", 1)]

    /// The size in bytes, or nil when `text` is not of that form.
    static func parse(_ text: String) -> Int? {
        let lowered = text.trimmingCharacters(in: .whitespaces).lowercased()
        for (suffix, factor) in units where lowered.hasSuffix(suffix) {
            let number = lowered.dropLast(suffix.count).trimmingCharacters(in: .whitespaces)
            guard let value = Int(number), value >= 0 else { return nil }
            let (product, overflow) = value.multipliedReportingOverflow(by: factor)
            return overflow ? nil : product
        }
        guard let value = Int(lowered), value >= 0 else { return nil }
        return value
    }
}

import Foundation
