import CatbirdSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Who holds a local TCP port that cannot be bound (`EADDRINUSE`), told from the kernel's socket
/// tables (`/proc/net/tcp`, `/proc/net/tcp6`; Linux), so that the refusal names the real cause
/// (tester finding tester41a-F8: "the port is in use by another process" when no process held
/// it, only a closed connection's TIME-WAIT on that port, which is common inside the range the
/// kernel gives outgoing connections, `/proc/sys/net/ipv4/ip_local_port_range`).
enum PortHolders {
    /// A socket of the tables whose local port is the one asked for: its state's code
    /// (`0A` listening, `06` TIME-WAIT, `01` established, …; Linux's `tcp_states.h`).
    private static func states(onLocalPort port: UInt16) -> [String] {
        let wanted = String(format: ":%04X", port)
        var found: [String] = []
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let text = ProcFile.text(table) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                // "  sl  local_address rem_address   st …": the second field, the fourth.
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                guard fields.count > 3, fields[1].hasSuffix(wanted) else { continue }
                found.append(String(fields[3]))
            }
        }
        return found
    }

    /// The range the kernel picks outgoing connections' local ports from, as `32768–60999`, or
    /// nil when it cannot be read.
    private static func ephemeralRange() -> (low: Int, high: Int)? {
        guard let text = ProcFile.text("/proc/sys/net/ipv4/ip_local_port_range") else { return nil }
        let parts = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).compactMap { Int($0) }
        return parts.count == 2 ? (parts[0], parts[1]) : nil
    }

    /// Why `port` is in use, for the start-up refusal: a listening socket is another process's
    /// server; else sockets of connections on that port (TIME-WAIT: closed within the last
    /// 60 s) hold it without a process listening, which waiting or another port cures; else
    /// (no table readable, or the socket gone meanwhile) the plain fact.
    static func inUseReason(port: UInt16) -> String {
        let states = states(onLocalPort: port)
        if states.contains("0A") {
            return "another process listens on that port (choose another --port)"
        }
        guard !states.isEmpty else { return "the port is in use (choose another --port)" }
        let waiting = states.filter { $0 == "06" }.count
        let held = waiting == states.count
            ? "\(waiting == 1 ? "a connection" : "\(waiting) connections") closed in the last 60 seconds (TCP TIME-WAIT)"
            : "\(states.count) connection\(states.count == 1 ? "" : "s") using it or closed in the last 60 seconds"
        var reason = "the port is in use although no process listens on it: \(held) still hold\(states.count == 1 ? "s" : "") it; "
            + "wait up to a minute or choose another --port"
        if let range = ephemeralRange(), (range.low...range.high).contains(Int(port)) {
            reason += " (ports \(range.low)–\(range.high), /proc/sys/net/ipv4/ip_local_port_range, are also taken by outgoing connections: a port outside that range avoids this)"
        }
        return reason
    }
}
