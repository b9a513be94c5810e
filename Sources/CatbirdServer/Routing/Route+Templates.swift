/// The full paths a parameter route serves, as documented (`/catbird/api/mocks/{id}`), for
/// the route table's 405 and "did you mean" (docs/protocol.md#errors). A template's segments
/// are literal, `{id}` (a journal entry's or a mock's id: digits) or `{name}` (a tenant id:
/// any non-empty segment, as sent, percent-encoded).
extension Route {
    /// This parameter route with the full paths it serves (each `/`-separated like a request
    /// path); a route without any fits every path it matches (``fits(_:)``).
    func serving(_ templates: String...) -> Route {
        var route = self
        route.templates = templates.map { $0.split(separator: "/", omittingEmptySubsequences: false).map(String.init) }
        return route
    }

    /// Whether `path` (as sent) has the shape of one of ``templates``: as many segments, the
    /// literal ones equal, `{id}` digits, `{name}` not empty. A path this route matches but
    /// does not fit (`/catbird/api/requests/count/`, `/catbird/api/tenants/`) is not offered
    /// as this route's in a 405's `Allow` (tester finding tester30a-F2: `POST
    /// /catbird/api/requests/count/` answered `405 Allow: GET, HEAD`, and the GET then
    /// answered 400 "not a journal id"); the route still answers it for its own method, which
    /// refuses it with its reason.
    func fits(_ path: Substring) -> Bool {
        fits(path, placeholders: true)
    }

    /// Whether `path` has the shape of one of ``templates`` but perhaps for its placeholders'
    /// segments (`/catbird/api/mocks/abc`, `/catbird/api/tenants/`): a path the route's handler
    /// refuses with its own reason (400 "a mock id is a whole number from 1"), not one meant for
    /// another route.
    func fitsButForPlaceholders(_ path: Substring) -> Bool {
        fits(path, placeholders: false)
    }

    private func fits(_ path: Substring, placeholders: Bool) -> Bool {
        guard !templates.isEmpty else { return true }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        return templates.contains { template in
            template.count == segments.count
                && zip(template, segments).allSatisfy { (!placeholders && Self.isPlaceholder($0)) || Self.segment($1, fits: $0) }
        }
    }

    /// Each template's path with its placeholders filled from `path`'s segments at the same
    /// places, when `path` has as many segments (or one more, empty) and those have the
    /// placeholder's shape: the paths this route would serve that
    /// are nearest to `path`, for ``RouteTable/suggestion(method:path:)`` (tester finding
    /// tester30a-F7: `DELETE /catbird/api/mock/5` was told "did you mean DELETE
    /// /catbird/api/mocks", the route that removes every tenant's mocks). A filled segment
    /// longer than ``longestShownSegment`` bytes is shown as its placeholder.
    func filledTemplates(from path: Substring) -> [(compared: String, shown: String)] {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        return templates.compactMap { template in
            // As many segments, or one more that is empty (a trailing `/`): a `/` inside an id
            // (`/catbird/api/tenants/a/b`) must not be read as a shorter id (`a`, another
            // tenant; tester finding tester30c-F1).
            guard segments.count == template.count || segments.count == template.count + 1 && segments.last == "" else { return nil }
            var compared: [Substring] = []
            var shown: [Substring] = []
            for (index, part) in template.enumerated() {
                guard Self.isPlaceholder(part) else {
                    compared.append(part[...])
                    shown.append(part[...])
                    continue
                }
                guard index < segments.count, Self.segment(segments[index], fits: part) else { return nil }
                compared.append(segments[index])
                shown.append(segments[index].utf8.count > Self.longestShownSegment ? part[...] : segments[index])
            }
            return (compared.joined(separator: "/"), shown.joined(separator: "/"))
        }
    }

    /// The longest path segment a suggestion repeats from the request: 64 bytes.
    static let longestShownSegment = 64

    private static func isPlaceholder(_ part: String) -> Bool {
        part == "{id}" || part == "{name}"
    }

    /// Whether the request's `segment` fits the template's `part`.
    private static func segment(_ segment: Substring, fits part: String) -> Bool {
        switch part {
        case "{id}": !segment.isEmpty && segment.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        case "{name}": !segment.isEmpty
        default: segment == part
        }
    }
}
