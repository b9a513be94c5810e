import CatbirdSupport
import CatbirdServer
import Foundation

// catbird: the command-line entry point. See CommandLineOptions.usage.

StandardDescriptors.openMissing()  // before any file is opened; see StandardDescriptors
let signalsTaken = TerminationSignals.block()  // before any thread starts; see TerminationSignals

let command: Command
do {
    command = try CommandLineOptions.parse(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
    // Paths and the host too, before the admin-token warning and before anything is touched.
    if case let .serve(settings) = command { try settings.checkOptions() }
} catch {
    // One line and a pointer, not the whole usage: the error stays on screen (README.md#configuration).
    let message = (error as? UnusableOption).map {
        CommandLineOptions.message(for: $0, arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
    } ?? "\(error)"
    // Escaped as the running server's log is: a value with a line break or a terminal escape
    // (from a CI variable) must not forge a second line or rewrite the terminal (tester21b-F12).
    let line = LogText.escapingControlCharacters(message)
    FileHandle.standardError.write(Data("catbird: \(line)\nRun 'catbird --help' for the options.\n".utf8))
    exit(2)
}

switch command {
case .help:
    print(CommandLineOptions.usage)
case .version:
    print("catbird \(CatbirdServer.version)")
case let .serve(settings):
    let log = Logger(level: settings.logLevel)
    // Warned, not refused: a variable meant for another program may share the prefix (F9 of try7a).
    for warning in UnknownVariables.warnings(in: ProcessInfo.processInfo.environment) { log.warning(warning) }
    OpenFileLimit.raiseToHardLimit()
    if let shortfall = OpenFileLimit.shortfall(threads: settings.workerThreads, perConnection: settings.descriptorsPerConnection) {
        log.error("cannot start: \(shortfall)")
        exit(1)  // a reason outside the database file (README.md#storage-faults)
    }
    let termination = TerminationSignals.watch(signalsTaken)
    if signalsTaken.hangUpIgnored {
        log.info("SIGHUP is ignored, as it was when the server started (nohup): a closed terminal or SSH session does not stop it")
    }
    let server: CatbirdServer
    do {
        server = try CatbirdServer(settings: settings, isStopping: { termination.received != nil })
        if let number = termination.received {
            log.info("stopping (signal \(number)) before listening: nothing was served")
            // Closes the database as a stop does, so no -wal or -shm is left beside it (tester21b-F2).
            server.stop()
            exit(0)
        }
        try server.start()
    } catch let stopped as StartupStopped {
        log.info("stopping (signal \(termination.received ?? SIGTERM)) during start-up: \(stopped); nothing was served")
        exit(0)
    } catch let error as DatabaseUnusable {
        if let limit = FileSizeLimit.startFailure(forDatabaseAt: settings.databasePath, reason: "\(error)") {
            log.error("cannot start: \(error); \(limit)")
            exit(1)  // not the file's fault: a restart with a higher limit starts
        }
        log.error("cannot start: \(error)")
        // Restarting will not help until the file is fixed (README.md#storage-faults), unless the
        // fault is the disk's (full): then 1, which a supervisor restarts on.
        exit(error.transient ? 1 : 3)
    } catch {
        let limit = FileSizeLimit.startFailure(forDatabaseAt: settings.databasePath, reason: "\(error)").map { "; \($0)" } ?? ""
        log.error("cannot start: \(error)\(limit)")
        exit(1)
    }
    log.announce("Catbird \(CatbirdServer.version) listening on \(server.url) (database: \(settings.databasePath))")
    // At every level, as the line above: help and README.md#configuration say it follows it (T19B-F4).
    log.announce(settings.modeSummary)
    if settings.adminToken == nil && !settings.listensOnLoopbackOnly {
        // Once listening, not before: a host that cannot be bound starts nothing (try5 finding 8c).
        log.warning(
            "listening on \(settings.host) without an admin token: anyone who can reach the port may list and drop "
                + "every tenant; set --admin-token or CATBIRD_ADMIN_TOKEN")
    }
    if let warning = settings.adminTokenWarning { log.warning(warning) }
    for warning in settings.corsWarnings { log.warning(warning) }
    if let warning = settings.journalBodyLimitWarning { log.warning(warning) }
    if let warning = settings.journalMaxBytesWarning { log.warning(warning) }
    if let warning = FileSizeLimit.warning(forDatabaseAt: settings.databasePath) { log.warning(warning) }
    for warning in settings.ineffectiveOptionWarnings { log.warning(warning) }
    if let warning = settings.openProxyWarning { log.warning(warning) }
    let number = termination.wait()
    log.info("stopping (signal \(number)): writing the journal and closing the database")
    guard server.stop() else {
        // A signalled stop that lost answered requests' entries or hits is not a clean one: a
        // supervisor or CI step that checks the status learns it, not only a reader of the log
        // (tester finding tester50a-F5: a lock held by a backup across the stop, exit 0).
        log.error(
            "stopped, but the journal did not store every entry and mock hit since the start (the errors above, `journal: …`, say "
                + "which and why): exit status 4")
        exit(4)
    }
    log.info("stopped")
    exit(0)
}
