import CMicroHTTPD

/// Facts about HTTP status codes.
public enum HTTPStatus {
    /// The standard reason phrase of `code` ("Not Found" for 404), from libmicrohttpd's table of
    /// the IANA registry (`MHD_get_reason_phrase_for`); "" for a code it does not know.
    public static func reasonPhrase(for code: Int) -> String {
        guard let code = UInt32(exactly: code), let phrase = MHD_get_reason_phrase_for(code) else { return "" }
        let text = String(cString: phrase)
        return text == "Unknown" ? "" : text
    }
}
