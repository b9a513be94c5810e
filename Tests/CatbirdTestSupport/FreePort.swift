#if canImport(Glibc)
import Glibc
#endif

/// A loopback TCP port that was free a moment ago (bound to port 0 on 127.0.0.1, read back,
/// released), for a child process that must be told its port up front. Tests that start the
/// server in-process bind port 0 instead and read the real port back.
public enum FreePort {
    /// Why no port could be had.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// - Throws: ``Failure`` naming the system call and errno.
    public static func next() throws -> UInt16 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw Failure(description: "socket() failed: errno \(errno)") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0
            }
        }
        guard named else { throw Failure(description: "bind/getsockname failed: errno \(errno)") }
        return UInt16(bigEndian: address.sin_port)
    }
}
