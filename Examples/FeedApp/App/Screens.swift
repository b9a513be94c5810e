/// What the app shows, one line per element on standard output, so a UI test can read the
/// screen off the process's output.
enum Screen {
    /// The feed: a `Feed` title, then `@author: text` per post.
    static func feed(_ posts: [Post]) {
        show("Feed")
        for post in posts {
            show("@\(post.author): \(post.text)")
        }
    }

    /// The confirmation after creating a post.
    static func posted(_ text: String) {
        show("Posted: \(text)")
    }

    /// The screen after a successful login.
    static func main() {
        show("Main Screen")
    }

    /// An error alert with `message`.
    static func error(_ message: String) {
        show("Error: \(message)")
    }

    /// An alert for an unexpected answer: its status code, or `invalid response` for a
    /// success status whose body the app cannot read.
    static func error(for answer: HTTPAnswer) {
        error((200..<300).contains(answer.status) ? "invalid response" : "\(answer.status)")
    }

    private static func show(_ line: String) {
        print(line)
    }
}
