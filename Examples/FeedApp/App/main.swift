// FeedApp: a stand-in for an iOS app under UI test, as a command-line program.
//
//   FeedApp [-catbird_url URL] [-catbird_parallel_id ID] feed
//   FeedApp [-catbird_url URL] [-catbird_parallel_id ID] post TEXT
//   FeedApp [-catbird_url URL] [-catbird_parallel_id ID] login EMAIL PASSWORD
//
// It talks to its (made-up) backend at https://api.feed.example, or, when the UI test handed
// over a Catbird server in the launch arguments or the environment (CATBIRD_URL,
// CATBIRD_PARALLEL_ID), to Catbird through CatbirdAppSupport. It prints what the app would
// display, one line per element. Exit status: 0 when it displayed something (an error alert
// included), 1 when the backend could not be reached at all, 2 for bad usage.
import CatbirdAppSupport
import Foundation

let usage = """
    usage: FeedApp [-catbird_url URL] [-catbird_parallel_id ID] feed
           FeedApp [-catbird_url URL] [-catbird_parallel_id ID] post TEXT
           FeedApp [-catbird_url URL] [-catbird_parallel_id ID] login EMAIL PASSWORD
    """

/// The arguments after the executable, without the Catbird launch arguments (each with its value).
func commandArguments(_ arguments: [String]) -> [String] {
    let catbirdKeys: Set = [
        CatbirdAppConfiguration.LaunchKeys.urlArgument, CatbirdAppConfiguration.LaunchKeys.parallelIdArgument,
    ]
    var remaining: [String] = []
    var index = arguments.index(after: arguments.startIndex)
    while index < arguments.endIndex {
        if catbirdKeys.contains(arguments[index]) {
            index += 2
        } else {
            remaining.append(arguments[index])
            index += 1
        }
    }
    return remaining
}

func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("FeedApp: \(message)\n".utf8))
    exit(status)
}

let command = commandArguments(ProcessInfo.processInfo.arguments)
let app = FeedApp(client: FeedClient(catbird: CatbirdAppConfiguration.current))

do {
    switch command.first {
    case "feed" where command.count == 1:
        try app.showFeed()
    case "post" where command.count == 2:
        try app.createPost(text: command[1])
    case "login" where command.count == 3:
        try app.login(email: command[1], password: command[2])
    default:
        fail("unexpected arguments \(command)\n\(usage)", status: 2)
    }
} catch {
    fail(error.description, status: 1)
}
