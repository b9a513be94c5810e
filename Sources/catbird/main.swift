import CatbirdDomain
import CatbirdServer
import Dispatch
import Foundation

// catbird: the command-line entry point. See CommandLineOptions.usage.

let command: Command
do {
    command = try CommandLineOptions.parse(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
} catch {
    FileHandle.standardError.write(Data("catbird: \(error)\n\n\(CommandLineOptions.usage)\n".utf8))
    exit(2)
}

switch command {
case .help:
    print(CommandLineOptions.usage)
case .version:
    print("catbird \(CatbirdServer.version)")
case let .serve(settings, ignoredVariables):
    let log = Logger(level: settings.logLevel)
    for variable in ignoredVariables {
        log.warning("\(variable) is set but not implemented in this version; ignored")
    }
    let server: CatbirdServer
    do {
        server = try CatbirdServer(settings: settings)
        try server.start()
    } catch {
        log.error("cannot start: \(error)")
        exit(1)
    }
    log.info("Catbird \(CatbirdServer.version) listening on http://\(settings.host):\(server.port) (database: \(settings.databasePath))")
    let signals = [SIGINT, SIGTERM].map { number in
        signal(number, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: number, queue: .main)
        source.setEventHandler {
            log.info("stopping (signal \(number)): writing the journal and closing the database")
            server.stop()
            exit(0)
        }
        source.resume()
        return source
    }
    withExtendedLifetime(signals) { dispatchMain() }
}
