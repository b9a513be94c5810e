import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Catbird {
    /// `error` as one line for a test failure: a `URLError` as its cause (the underlying
    /// error's text when there is one, `Failed to connect to 127.0.0.1 port 51849 …`), its code
    /// and the URL it could not reach, with a hint to start the server; any other error as its
    /// description. An `NSError` dump (`Error Domain=NSURLErrorDomain Code=-1004 "(null)"
    /// UserInfo={…}`) hid both (tester finding tester48c-F11).
    func readable(_ error: any Error) -> String {
        guard let failure = error as? URLError else { return "\(error)" }
        let underlying = (failure as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
        let cause = underlying?.localizedDescription ?? failure.localizedDescription
        return "\(cause) (URLError \(failure.code.rawValue)) — could not reach Catbird at \(url.absoluteString): is it running on that "
            + "port (scripts/run, or deploy/xcode/start.sh for a simulator run)?"
    }
}
