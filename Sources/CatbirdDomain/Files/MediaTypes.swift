import Foundation

/// Media types and their file extensions, read from a `mime.types` table (Debian's
/// `media-types` package installs `/etc/mime.types`): one type per line followed by its
/// extensions, `#` starts a comment. Rules: `docs/files.md#accept-candidates`.
public struct MediaTypes: Sendable {
    /// Extensions per lowercased media type, in the table's order (the first is preferred).
    public private(set) var extensionsByType: [String: [String]] = [:]
    /// The media type per lowercased extension (the first line naming it wins).
    public private(set) var typeByExtension: [String: String] = [:]

    /// Where the system keeps the table: Debian/Ubuntu, then macOS's Apache copy.
    public static let systemPaths = ["/etc/mime.types", "/etc/apache2/mime.types", "/private/etc/apache2/mime.types"]

    /// Parses the text of a `mime.types` table.
    public init(table: String) {
        for line in table.split(whereSeparator: \.isNewline) {
            let content = line.prefix { $0 != "#" }
            let words = content.split(whereSeparator: { $0 == " " || $0 == "\t" }).map { $0.lowercased() }
            guard let type = words.first, type.contains("/"), words.count > 1 else { continue }
            let extensions = Array(words.dropFirst())
            extensionsByType[type, default: []].append(contentsOf: extensions)
            for ext in extensions where typeByExtension[ext] == nil { typeByExtension[ext] = type }
        }
    }

    /// The first table found at ``systemPaths``, or nil when there is none.
    public static func system() -> MediaTypes? {
        for path in systemPaths {
            if let text = try? String(contentsOfFile: path, encoding: .utf8) { return MediaTypes(table: text) }
        }
        return nil
    }

    /// The extensions for `mediaType` (parameters and case ignored), preferred first; empty for
    /// an unknown type or a wildcard. A type with a structured syntax suffix (RFC 6839: `+json`,
    /// `+xml`, `+zip`, `+cbor`…) also has its base type's after its own:
    /// `application/vnd.api+json` → `json`, `application/json-patch+json` → `json-patch`, `json`
    /// (docs/files.md#accept-candidates; tester finding try8a F6: JSON:API and HAL clients,
    /// which must send their own type, never found `books.json`).
    public func extensions(for mediaType: String) -> [String] {
        let essence = Self.essence(mediaType)
        let own = extensionsByType[essence] ?? []
        guard let base = Self.suffixBaseType(of: essence), let inherited = extensionsByType[base] else { return own }
        return own + inherited.filter { !own.contains($0) }
    }

    /// The base type of a structured syntax suffix (RFC 6839 section 4: `+json` is
    /// `application/json`, `+xml` `application/xml`, and so on for every registered suffix):
    /// `application/<suffix>`; nil without a suffix (no `+` in the subtype, or nothing after it).
    static func suffixBaseType(of essence: String) -> String? {
        guard let slash = essence.firstIndex(of: "/"), let plus = essence[slash...].lastIndex(of: "+") else { return nil }
        let suffix = essence[essence.index(after: plus)...]
        guard !suffix.isEmpty else { return nil }
        return "application/" + suffix
    }

    /// The media type for a file name's extension (case ignored), or nil.
    public func type(forFileName name: String) -> String? {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        return typeByExtension[name[name.index(after: dot)...].lowercased()]
    }

    /// `type/subtype` lowercased, without parameters or spaces.
    static func essence(_ mediaType: String) -> String {
        mediaType.prefix { $0 != ";" }.trimmingCharacters(in: .whitespaces).lowercased()
    }
}
