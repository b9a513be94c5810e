import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension CatbirdAppConfiguration {
    /// A copy of `base` whose requests carry `X-Catbird-Parallel-Id` (added to
    /// `httpAdditionalHeaders`; nothing is added for the default tenant). `base` itself is not
    /// changed.
    ///
    /// Requests still go where their URLs point: aim them at Catbird with ``url(for:)`` (for
    /// example on the app's base URL) or ``redirect(_:)``.
    public func sessionConfiguration(_ base: URLSessionConfiguration = .default) -> URLSessionConfiguration {
        let configuration = base.copy() as? URLSessionConfiguration ?? base
        var additional = configuration.httpAdditionalHeaders ?? [:]
        for (name, value) in headers {
            additional[name] = value
        }
        configuration.httpAdditionalHeaders = additional
        return configuration
    }
}
