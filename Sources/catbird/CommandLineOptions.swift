import CatbirdSupport
import CatbirdServer
import Foundation

/// What `catbird` was asked to do.
enum Command {
    case serve(CatbirdServer.Settings)
    case help
    case version
}

/// A command-line or environment value that cannot be used; printed with the usage, exit 2.
struct UsageError: Error, CustomStringConvertible {
    let description: String
    /// The option a relation between options found at fault (``CommandLineOptions/parse``
    /// names its variable when no flag gave it); nil for the others.
    var option: String? = nil
}

/// Parses `catbird [serve] [options]` and the `CATBIRD_*` environment variables (flags win).
enum CommandLineOptions {
    /// The help text: `Usage.txt` in this folder, embedded at build time, so that
    /// `scripts/run --help` can print the same file without building anything.
    static let usage = String(decoding: PackageResources.Usage_txt, as: UTF8.self)
        .trimmingCharacters(in: .newlines)

    /// Options that take no value (`--name` alone means on); their variables are on when set to
    /// `1`, `true` or `yes` (any case).
    static let switches: Set<String> = ["files-with-query", "proxy", "record", "cors"]

    /// The option each `CATBIRD_*` variable stands for, by option name.
    static let environmentNames = [
        "host": "CATBIRD_HOST", "port": "CATBIRD_PORT", "db": "CATBIRD_DB", "log-level": "CATBIRD_LOG_LEVEL",
        "max-body-size": "CATBIRD_MAX_BODY_SIZE", "journal-body-limit": "CATBIRD_JOURNAL_BODY_LIMIT",
        "threads": "CATBIRD_THREADS", "mocks-dir": "CATBIRD_MOCKS_DIR", "files-with-query": "CATBIRD_FILES_WITH_QUERY",
        "admin-token": "CATBIRD_ADMIN_TOKEN",
        "tenant-ttl": "CATBIRD_TENANT_TTL", "journal-max-rows": "CATBIRD_JOURNAL_MAX_ROWS",
        "journal-max-age": "CATBIRD_JOURNAL_MAX_AGE", "journal-max-bytes": "CATBIRD_JOURNAL_MAX_BYTES",
        "redirect-url": "CATBIRD_REDIRECT_URL", "proxy": "CATBIRD_PROXY_ENABLED", "record": "CATBIRD_RECORD_MODE",
        "upstream-timeout": "CATBIRD_UPSTREAM_TIMEOUT", "upstream-ca-file": "CATBIRD_UPSTREAM_CA_FILE",
        "cors": "CATBIRD_CORS", "cors-origin": "CATBIRD_CORS_ORIGINS", "allowed-host": "CATBIRD_ALLOWED_HOSTS", "durability": "CATBIRD_DURABILITY",
        "max-tenant-mocks": "CATBIRD_MAX_TENANT_MOCKS", "max-tenant-mock-bytes": "CATBIRD_MAX_TENANT_MOCK_BYTES",
        "max-buffered-bodies": "CATBIRD_MAX_BUFFERED_BODIES", "head-timeout": "CATBIRD_HEAD_TIMEOUT",
    ]

    /// Refused (README.md#configuration): an unknown option or argument, an option given twice,
    /// `--help` or `--version` with anything else, a `CATBIRD_*` variable set but empty, and any value the
    /// option does not accept. The arguments are read first, so `--help` and `--version`
    /// answer whatever the environment holds; then the variables, in the order of their names,
    /// so that of two bad ones the same is named on every run.
    /// - Throws: ``UsageError`` naming the flag or variable and what it accepts.
    static func parse(_ arguments: [String], environment: [String: String]) throws(UsageError) -> Command {
        var flags: [String: String] = [:]
        var remaining = arguments[...]
        if remaining.first == "serve" { remaining = remaining.dropFirst() }
        while let argument = remaining.popFirst() {
            switch argument {
            case "-h", "--help", "help":
                // As `--version`: `-h extra` printed help and exited 0 (T11-F10).
                guard flags.isEmpty, remaining.isEmpty else {
                    throw UsageError(description: "'\(argument)' takes no other arguments: run `catbird --help` alone")
                }
                return .help
            case "--version", "version":
                guard flags.isEmpty, remaining.isEmpty else {
                    throw UsageError(description: "'\(argument)' takes no other arguments: run `catbird --version` alone")
                }
                return .version
            default:
                guard argument.hasPrefix("--") else { throw UsageError(description: "unexpected argument '\(argument)'") }
                var name = String(argument.dropFirst(2))
                var value: String?
                if let equals = name.firstIndex(of: "=") {
                    value = String(name[name.index(after: equals)...])
                    name = String(name[..<equals])
                }
                // `--help=x`, `--version=1`: the options exist, and take no value (tester finding
                // tester50c-F2: they were called unknown).
                if value != nil, name == "help" || name == "version" {
                    throw UsageError(description: "option '--\(name)' takes no value")
                }
                guard environmentNames[name] != nil else { throw UsageError(description: "unknown option '--\(name)'") }
                // Given twice, which one counts would be a guess: refused rather than the last taken.
                guard flags[name] == nil else {
                    throw UsageError(description: "option '--\(name)' is given more than once: give it once")
                }
                if switches.contains(name) {
                    guard value == nil else { throw UsageError(description: "option '--\(name)' takes no value") }
                    flags[name] = "true"
                    continue
                }
                if value == nil, let next = remaining.first, isOption(next) {
                    // `--db --help` made a database file named `--help` and served on the default
                    // port; `--db --port 19401` called 19401 the unexpected argument (tester
                    // finding tester21b-F1). A value that is an option's name is given with `=`.
                    throw UsageError(description: "option '--\(name)' needs a value, and '\(next)' after it is an option: "
                        + "give the value first, or as --\(name)=\(next) if that is the value")
                }
                guard let given = value ?? remaining.popFirst() else {
                    throw UsageError(description: "option '--\(name)' needs a value")
                }
                flags[name] = given
            }
        }
        // A flag wins over its variable, but a bad variable is refused even then.
        let variables = try environmentValues(environment)
        try checkVariables(variables, flags: flags)
        do {
            return .serve(try settings(from: variables.merging(flags) { $1 }))
        } catch {
            // A relation's fault in a value a variable gave names the variable, as every other
            // bad variable is named (tester finding tester21b-F4: CATBIRD_MAX_BUFFERED_BODIES=1
            // read as if --max-buffered-bodies had been given).
            guard let option = error.option, flags[option] == nil, let variable = environmentNames[option] else { throw error }
            throw UsageError(description: "\(variable): \(error.description)")
        }
    }

    /// Whether `argument` is one of the options: `-h`, `--help`, `--version`, or `--` and an
    /// option's name (with or without `=value`).
    private static func isOption(_ argument: String) -> Bool {
        if ["-h", "--help", "--version"].contains(argument) { return true }
        guard argument.hasPrefix("--") else { return false }
        let name = argument.dropFirst(2).split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return environmentNames[String(name)] != nil
    }

    /// Checks each variable's value, in the order of the variables' names, as it would be
    /// checked in effect, alone, so that a bad value names the variable it came from (tester
    /// finding T19B-F20: `CATBIRD_PORT=tcp://…` without `--port` got `port must be …` with
    /// neither the variable nor the Kubernetes hint), also when a flag overrides it (tester
    /// finding T14B-F2: `CATBIRD_PORT=abc --port 8080` started). Relations between options
    /// (`--max-buffered-bodies` at least `--max-body-size`, what `--record` needs) are checked on
    /// the values in effect only.
    /// - Throws: ``UsageError``: the variable (and the flag that overrides it), the usual
    ///   message, and a hint for a Kubernetes service link or a value ending in a line break.
    private static func checkVariables(_ variables: [String: String], flags: [String: String]) throws(UsageError) {
        for (option, variable) in environmentNames.sorted(by: { $0.value < $1.value }) {
            guard let value = variables[option] else { continue }
            do {
                _ = try settings(from: [option: value], relations: false)
            } catch {
                let source = flags[option] != nil ? "\(variable) (overridden by --\(option), but checked)" : variable
                throw UsageError(description: "\(source): \(error.description)" + serviceLinkHint(value) + lineBreakHint(value))
            }
        }
    }

    /// `error`'s message, its option named as the variable it came from when no flag gave it
    /// (T19B-F20: `CATBIRD_MOCKS_DIR=/nonexistent` was reported as `--mocks-dir: …`).
    static func message(for error: UnusableOption, arguments: [String], environment: [String: String]) -> String {
        let option = error.option
        guard let variable = environmentNames[option], let value = environment[variable],
              !arguments.contains(where: { $0 == "--\(option)" || $0.hasPrefix("--\(option)=") })
        else { return error.description }
        return "\(variable): \(error.problem)" + lineBreakHint(value)
    }

    /// A hint for a value that ends in a line break (`CATBIRD_ADMIN_TOKEN` from a Kubernetes
    /// Secret made with `echo token | base64`, T19B-F20). Empty for any other value.
    static func lineBreakHint(_ value: String) -> String {
        guard value.hasSuffix("\n") || value.hasSuffix("\r") else { return "" }
        return " (the value ends in a line break: made with `echo`? use `printf %s` or `echo -n`)"
    }

    /// A hint for a value of the form `tcp://10.0.0.7:8080`: what Kubernetes sets `CATBIRD_PORT` to
    /// in every pod of a namespace holding a Service named `catbird` (its service links, re-read
    /// of the T14B-F2 change: a `--port` no longer hides it). Empty for any other value.
    static func serviceLinkHint(_ value: String) -> String {
        guard value.hasPrefix("tcp://") || value.hasPrefix("udp://") || value.hasPrefix("sctp://") else { return "" }
        return " (a Kubernetes service link of a Service named catbird? set enableServiceLinks: false in the pod's spec, "
            + "or CATBIRD_PORT in the container's env)"
    }

    /// The options the `CATBIRD_*` variables in `environment` set, checked in the order of the
    /// variables' names; a switch's variable that is off sets nothing.
    /// - Throws: ``UsageError`` for the first variable (by name) set but empty, or a switch's
    ///   variable that is neither on nor off.
    private static func environmentValues(_ environment: [String: String]) throws(UsageError) -> [String: String] {
        var values: [String: String] = [:]
        for (option, variable) in environmentNames.sorted(by: { $0.value < $1.value }) {
            guard let value = environment[variable] else { continue }
            // Set but empty is a mistake (a template's unfilled value), not "use the default":
            // refused as the flag with an empty value is.
            guard !value.isEmpty else {
                throw UsageError(description: "\(variable) is set but empty: give it a value or unset it")
            }
            guard switches.contains(option) else {
                values[option] = value
                continue
            }
            // A value that is neither on nor off is refused as a bad flag value is, not taken as off.
            guard let on = switchValue(value) else {
                throw UsageError(description: "\(variable) must be 1, true, yes or on to turn it on, or 0, false, no or off to turn it off, not '\(value)'")
            }
            if on { values[option] = "true" }
        }
        return values
    }

    /// The settings `values` (option name → value) give.
    /// - Parameter relations: whether to check the options against each other too (the values
    ///   in effect), or each value alone (a variable a flag overrides).
    private static func settings(from values: [String: String], relations: Bool = true) throws(UsageError) -> CatbirdServer.Settings {
        var settings = CatbirdServer.Settings()
        if let host = values["host"] {
            // `[::1]`, as in a URL, is the address `::1`.
            settings.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
            guard !settings.host.isEmpty else { throw UsageError(description: "host must not be empty (e.g. 127.0.0.1, ::1, 0.0.0.0)") }
        }
        if let port = values["port"] {
            guard let number = UInt16(port) else { throw UsageError(description: "port must be 0...65535, not '\(port)'") }
            settings.port = number
        }
        if let path = values["db"] {
            guard !path.isEmpty else {
                throw UsageError(description: "database path must not be empty: give a file path (--db catbird.sqlite) or :memory:")
            }
            settings.databasePath = path
        }
        if let level = values["log-level"] {
            guard let parsed = Logger.Level(name: level) else {
                throw UsageError(description: "log level must be debug, info, warning or error, not '\(level)'")
            }
            settings.logLevel = parsed
        }
        if let size = values["max-body-size"] {
            guard let bytes = ByteSize.parse(size) else {
                if Self.isTooLargeNumber(size) {
                    throw UsageError(description: "max body size is too large a number (at most \(Int.max)); not '\(size)'")
                }
                throw UsageError(description: "max body size must be bytes or a size like 1kb, 50mb, not '\(size)'")
            }
            guard bytes > 0 else {
                throw UsageError(description: "max body size must be at least 1 byte, not '\(size)' (a request with a body would always get 413)")
            }
            settings.maxBodySize = bytes
        }
        try connectionSettings(from: values, into: &settings, relations: relations)
        if let size = values["journal-body-limit"] {
            guard let bytes = ByteSize.parse(size) else {
                throw UsageError(description: "journal body limit must be bytes or a size like 64kb, not '\(size)'")
            }
            guard bytes <= CatbirdServer.Settings.maxJournalBodyLimit else {
                throw UsageError(
                    description: "journal body limit must be at most 476mb (\(CatbirdServer.Settings.maxJournalBodyLimit) bytes), not '\(size)': "
                        + "a journal row holds a request and a response body, and SQLite stores at most 1,000,000,000 bytes in a row")
            }
            settings.journalBodyLimit = bytes
        }
        if let text = values["max-tenant-mocks"] {
            settings.mockLimits.maxMocks = try offOrPositive(
                text, { Int($0) }, else: "max tenant mocks must be a whole number of mocks from 1, or off")
        }
        if let text = values["max-tenant-mock-bytes"] {
            settings.mockLimits.maxBytes = try offOrPositive(
                text, units: true, ByteSize.parse, else: "max tenant mock bytes must be bytes or a size like 512mb, 1gb, or off")
        }
        if let threads = values["threads"] {
            guard let count = Int(threads), (1...256).contains(count) else {
                throw UsageError(description: "threads must be 1...256, not '\(threads)'")
            }
            settings.threadCount = count
        }
        if let text = values["durability"] {
            guard let durability = Durability(rawValue: text.lowercased()) else {
                throw UsageError(description: "durability must be relaxed or strict, not '\(text)'")
            }
            settings.durability = durability
        }
        settings.mocksDirectory = values["mocks-dir"]
        settings.filesIncludeQuery = values["files-with-query"] != nil
        if let text = values["tenant-ttl"] { settings.retention.tenantTTL = try retentionDuration(text, option: "tenant-ttl") }
        if let text = values["journal-max-age"] {
            settings.retention.journalMaxAge = try retentionDuration(text, option: "journal-max-age")
        }
        if let text = values["journal-max-rows"] {
            settings.retention.journalMaxRows = try offOrPositive(
                text, zeroIsOff: true, { Int($0) }, else: "journal-max-rows must be a whole number of rows, or 0 or off")
        }
        if let text = values["journal-max-bytes"] {
            let bytes = try offOrPositive(
                text, zeroIsOff: true, units: true, ByteSize.parse, else: "journal-max-bytes must be a size like 500mb or 2gb, or 0 or off")
            if let bytes, bytes < 1 << 20 {
                throw UsageError(description: "journal-max-bytes must be at least 1mb (a journal row alone may hold two bodies of --journal-body-limit), or 0 or off; not '\(text)'")
            }
            settings.retention.journalMaxBytes = bytes
        }
        if let token = values["admin-token"] {
            guard !token.isEmpty, token.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
                throw UsageError(description: "admin token must be printable ASCII without spaces, and not empty")
            }
            settings.adminToken = token
        }
        try forwardingSettings(from: values, into: &settings, relations: relations)
        return settings
    }

    /// What the connections may hold: the bodies buffered at once, all together, and how long a
    /// request's head may take (docs/operations.md#connections-and-memory). Read after
    /// `--max-body-size`, which the budget must hold at least once.
    private static func connectionSettings(
        from values: [String: String], into settings: inout CatbirdServer.Settings, relations: Bool
    ) throws(UsageError) {
        if let size = values["max-buffered-bodies"] {
            guard let bytes = ByteSize.parse(size) else {
                throw UsageError(description: "max buffered bodies must be bytes or a size like 400mb, 2gb, not '\(size)'")
            }
            guard bytes >= settings.maxBodySize || !relations else {
                throw UsageError(
                    description: "max buffered bodies must be at least --max-body-size (\(settings.maxBodySize) bytes), "
                        + "or a body of the largest size could never be taken; not '\(size)'",
                    option: "max-buffered-bodies")
            }
            settings.maxBufferedBodies = bytes
        }
        if let text = values["head-timeout"] {
            if text.lowercased() == "off" {
                settings.headTimeout = nil
            } else {
                // `30s` as well as `30`, as the other durations are written (tester finding try10a F5).
                let number = text.lowercased().hasSuffix("s") ? String(text.dropLast()) : text
                guard let seconds = Int(number), (1...3600).contains(seconds) else {
                    throw UsageError(description: "head timeout must be whole seconds from 1 to 3600 (30 or 30s), or off; not '\(text)'")
                }
                settings.headTimeout = .seconds(seconds)
            }
        }
    }

    /// Redirect, proxy and record modes, CORS and the upstream time limit (`docs/files.md`).
    private static func forwardingSettings(
        from values: [String: String], into settings: inout CatbirdServer.Settings, relations: Bool
    ) throws(UsageError) {
        if let url = values["redirect-url"] {
            if let problem = RedirectURLCharacters.problem(in: url) {
                throw UsageError(description: "redirect URL '\(URLPassword.hidden(in: url))' cannot be forwarded to: \(problem)")
            }
            guard let components = URLComponents(string: url), ["http", "https"].contains(components.scheme?.lowercased() ?? ""),
                  components.host?.isEmpty == false, components.query == nil, components.fragment == nil else {
                // A fragment was refused as "no query" (tester finding tester64a-F2): the reason names it.
                let part = URLComponents(string: url)?.fragment != nil ? "no fragment ('#…')" : "no query"
                throw UsageError(
                    description: "redirect URL must be an http:// or https:// URL with a host and \(part), not '\(URLPassword.hidden(in: url))'")
            }
            if let port = RedirectURLPort.written(in: url), !RedirectURLPort.isConnectable(port) {
                // Accepted before, then every forwarded request was a 502 "URL using bad/illegal
                // format" (99999, 2^63) or "Couldn't connect" (0) (tester findings tester23a-F5, tester24a-F4).
                throw UsageError(
                    description: "redirect URL '\(URLPassword.hidden(in: url))' cannot be forwarded to: its port \(port) is not a TCP port a connection can be made to (1 to 65535)")
            }
            settings.redirectURL = url
        }
        settings.proxyEnabled = values["proxy"] != nil
        settings.recordMode = values["record"] != nil
        settings.cors = values["cors"] != nil
        if let origins = values["cors-origin"] { settings.corsOrigins = try corsOrigins(origins) }
        if let names = values["allowed-host"] { settings.allowedHosts = try allowedHosts(names) }
        if let timeout = values["upstream-timeout"] {
            guard let milliseconds = DecimalSeconds.milliseconds(timeout, maxSeconds: 3600), milliseconds > 0 else {
                throw UsageError(
                    description: "upstream timeout must be seconds in decimal digits (30, 30s, 0.5), more than 0 and at most 3600, not '\(timeout)'")
            }
            settings.upstreamTimeout = .milliseconds(milliseconds)
        }
        settings.upstreamCAFile = values["upstream-ca-file"]  // checked by Settings.checkOptions()
        if settings.recordMode && relations {
            guard settings.mocksDirectory != nil else {
                throw UsageError(description: "record mode writes file mocks: give --mocks-dir (CATBIRD_MOCKS_DIR)")
            }
            guard settings.redirectURL != nil || settings.proxyEnabled else {
                throw UsageError(description: "record mode records what the upstream answers: give --redirect-url or --proxy")
            }
        }
    }

    /// `--cors-origin`'s comma-separated list: each `*` or an origin as a browser sends it in
    /// `Origin`, `http://` or `https://`, a host and an optional port, no path (docs/files.md#cors).
    static func corsOrigins(_ list: String) throws(UsageError) -> [String] {
        let origins = list.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        for origin in origins where origin != "*" {
            guard CatbirdServer.Settings.isListableOrigin(origin) else {
                throw UsageError(description: "CORS origin must be '*' or an origin such as http://localhost:3000 (scheme, host, optional port, no path), not '\(origin)'")
            }
        }
        // As a browser sends them (`http://a.com:80` is `http://a.com`), so the log shows what is compared.
        return origins.map { $0 == "*" ? $0 : CatbirdServer.Settings.normalizedOrigin($0) }
    }

    /// `--allowed-host`'s comma-separated list: each `*` or a host name without port, scheme or
    /// path, as it appears in `Host` (docs/files.md#host-names).
    static func allowedHosts(_ list: String) throws(UsageError) -> [String] {
        let names = list.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        for name in names where name != "*" {
            guard CatbirdServer.Settings.isListableHost(name) else {
                throw UsageError(description: "allowed host must be '*' or a host name such as ci-mocks.internal (no scheme, port or path), not '\(name)'")
            }
        }
        return names
    }

    /// Whether a switch's variable is on (`1`, `true`, `yes`) or off (`0`, `false`, `no`), any
    /// case; nil for anything else.
    static func switchValue(_ value: String) -> Bool? {
        switch value.trimmingCharacters(in: .whitespaces).lowercased() {
        // `on`/`off` as the start-up's modes line writes them (tester finding tester30a-F9:
        // `CATBIRD_PROXY_ENABLED=on`, copied from `modes: … proxy on`, was refused).
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default: return nil
        }
    }

    /// A limit that is `off` (any case: nil) or a number `parse` reads from `text` that is
    /// above 0 (or, with `zeroIsOff`, 0 too, which is also off: nil).
    /// - Throws: ``UsageError`` saying `problem`, then the text given, for anything else.
    private static func offOrPositive(
        _ text: String, zeroIsOff: Bool = false, units: Bool = false, _ parse: (String) -> Int?, else problem: String
    ) throws(UsageError) -> Int? {
        if text.lowercased() == "off" { return nil }
        // The option's name as the problem says it (`max tenant mock bytes`), for the two
        // refusals that are not about the form (tester finding tester42b-F11: `0` and a number
        // past 64 bits were told they were no number or size at all).
        let name = problem.components(separatedBy: " must be").first ?? problem
        guard let number = parse(text) else {
            if Self.isTooLargeNumber(text, units: units) {
                throw UsageError(description: "\(name) is too large a number (at most \(Int.max)); not '\(text)'")
            }
            throw UsageError(description: "\(problem); not '\(text)'")
        }
        guard number > 0 || (zeroIsOff && number == 0) else {
            // Where 0 means no limit, the refusal says so (tester finding tester54a-F6: `-1` was told
            // "at least 1", though 0 is taken).
            let off = zeroIsOff ? "0 or off" : "off"
            throw UsageError(description: "\(name) must be at least 1, or \(off) for no limit; not '\(text)'")
        }
        return number > 0 ? number : nil
    }

    /// Whether `text` is digits (with `units`, a size unit too: `kb`, `mb`, `gb`, `b`) whose
    /// value is past `Int.max`: of the right form, but too large. A unit on a count, or a
    /// value that fits, is not (tester finding tester50c-F1: `--journal-max-rows 1mb` and `' 10'`
    /// were told they were too large).
    static func isTooLargeNumber(_ text: String, units: Bool = true) -> Bool {
        var digits = Substring(text.trimmingCharacters(in: .whitespaces).lowercased())
        var factor = 1
        if units {
            for (unit, unitFactor) in ByteSize.units where digits.hasSuffix(unit) {
                digits = digits.dropLast(unit.count)
                factor = unitFactor
                break
            }
        }
        digits = Substring(digits.trimmingCharacters(in: .whitespaces))
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return false }
        guard let value = Int(digits) else { return true }
        return value.multipliedReportingOverflow(by: factor).overflow
    }

    /// A ``RetentionDuration``; nil for `off`.
    private static func retentionDuration(_ text: String, option: String) throws(UsageError) -> Duration? {
        guard let duration = RetentionDuration.parse(text) else {
            if RetentionDuration.isTooLong(text) {
                throw UsageError(description: "\(option) must be at most 36500d (100 years), or 0 or off for no limit; not '\(text)'")
            }
            throw UsageError(
                description: "\(option) must be a whole number with s, m, h or d (90s, 30m, 12h, 7d), or 0 or off for no limit; not '\(text)'")
        }
        return duration
    }
}
