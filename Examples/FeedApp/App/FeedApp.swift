/// The app's screens and what each user action does.
struct FeedApp {
    let client: FeedClient

    /// Opens the feed.
    func showFeed() throws(TransportError) {
        switch try client.feed() {
        case .success(let posts): Screen.feed(posts)
        case .failure(let answer): Screen.error(for: answer)
        }
    }

    /// Creates a post, then shows the refreshed feed.
    func createPost(text: String) throws(TransportError) {
        switch try client.createPost(text: text) {
        case .success:
            Screen.posted(text)
            try showFeed()
        case .failure(let answer):
            Screen.error(for: answer)
        }
    }

    /// Logs in: the main screen, or an alert with the server's message.
    func login(email: String, password: String) throws(TransportError) {
        switch try client.login(email: email, password: password) {
        case .success:
            Screen.main()
        case .failure(let answer):
            if answer.status == 400, let message = LoginError.message(in: answer.body) {
                Screen.error(message)
            } else {
                Screen.error(for: answer)
            }
        }
    }
}
