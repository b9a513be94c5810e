// microhttpd.h expects these system headers to be included first.
#include <stdint.h>
#include <string.h>
#include <stdarg.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

// MHD_start_daemon is variadic, which Swift cannot call: this wrapper starts one worker daemon
// with the fixed set of options Catbird uses: no listening socket of its own (the caller's
// acceptor hands it connections with MHD_add_connection), its own polling thread, and a
// notification when each connection starts and closes. See
// https://www.gnu.org/software/libmicrohttpd/manual/html_node/microhttpd_002dinit.html
typedef void *(*catbird_mhd_uri_log_callback)(void *cls, const char *uri, struct MHD_Connection *connection);

static inline struct MHD_Daemon *catbird_mhd_start_worker(unsigned int flags,
                                                          unsigned int connection_timeout_seconds,
                                                          size_t connection_memory_limit_bytes,
                                                          unsigned int connection_limit,
                                                          MHD_AccessHandlerCallback handler,
                                                          void *handler_context,
                                                          MHD_RequestCompletedCallback completed,
                                                          catbird_mhd_uri_log_callback uri_log,
                                                          void *context,
                                                          MHD_NotifyConnectionCallback notify_connection,
                                                          void *notify_context) {
    return MHD_start_daemon(flags | MHD_USE_NO_LISTEN_SOCKET, 0, NULL, NULL, handler, handler_context,
                            MHD_OPTION_CONNECTION_TIMEOUT, connection_timeout_seconds,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, connection_memory_limit_bytes,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, context,
                            MHD_OPTION_URI_LOG_CALLBACK, uri_log, context,
                            MHD_OPTION_NOTIFY_CONNECTION, notify_connection, notify_context,
                            MHD_OPTION_END);
}

#include <arpa/inet.h>
#include <netinet/in.h>
// MHD_get_connection_info is variadic: this copies the client's IP address (network byte
// order; 4 bytes for IPv4, 16 for IPv6) into `bytes` and returns its family, AF_INET or
// AF_INET6; 0 when unknown. The text is made only when needed (inet_ntop).
static inline int catbird_mhd_client_ip(struct MHD_Connection *connection, uint8_t bytes[16]) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL) return 0;
    const struct sockaddr *address = info->client_addr;
    if (address->sa_family == AF_INET) {
        memcpy(bytes, &((const struct sockaddr_in *)address)->sin_addr, 4);
        return AF_INET;
    }
    if (address->sa_family == AF_INET6) {
        memcpy(bytes, &((const struct sockaddr_in6 *)address)->sin6_addr, 16);
        return AF_INET6;
    }
    return 0;
}

// MHD_get_connection_info is variadic: this returns the size in bytes of the request line and
// header section just parsed (MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE), or 0 when unknown.
static inline size_t catbird_mhd_request_header_size(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
    return info == NULL ? 0 : info->header_size;
}

// MHD_get_connection_info is variadic: this returns the status of the response queued on the
// connection (MHD_CONNECTION_INFO_HTTP_STATUS), or 0 when none is. In the completion callback it
// is the status of what was sent, libmicrohttpd's own error pages included.
static inline unsigned int catbird_mhd_response_status(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_HTTP_STATUS);
    return info == NULL ? 0 : info->http_status;
}

// MHD_get_connection_info is variadic: this returns the connection's socket, or -1.
static inline int catbird_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

// MHD_set_response_options is variadic: this sends `response` without chunked coding, its end
// the connection's close (MHD_RF_HTTP_1_0_COMPATIBLE_STRICT); MHD_YES when set.
static inline enum MHD_Result catbird_mhd_close_delimited(struct MHD_Response *response) {
    return MHD_set_response_options(response, MHD_RF_HTTP_1_0_COMPATIBLE_STRICT, MHD_RO_END);
}

// ioctl is variadic: this returns the bytes a socket has not sent yet (SIOCOUTQ), or -1.
#include <sys/ioctl.h>
#include <linux/sockios.h>
static inline int catbird_socket_unsent_bytes(int socket) {
    int unsent = 0;
    return ioctl(socket, SIOCOUTQ, &unsent) == 0 ? unsent : -1;
}

// Bytes received on `socket` and not read yet (FIONREAD), or -1: ChunkLineWatch tells a body
// libmicrohttpd stopped reading by them (ioctl is variadic, which Swift cannot call).
static inline int catbird_socket_unread_bytes(int socket) {
    int unread = 0;
    return ioctl(socket, FIONREAD, &unread) == 0 ? unread : -1;
}

// Clients waiting in listening socket `listener`'s accept queue, or -1: Linux reports a
// listening socket's queue length in TCP_INFO's tcpi_unacked (its bound in tcpi_sacked).
#include <netinet/tcp.h>
static inline int catbird_listen_queue_length(int listener) {
    struct tcp_info info;
    socklen_t length = sizeof(info);
    if (getsockopt(listener, IPPROTO_TCP, TCP_INFO, &info, &length) != 0) return -1;
    return (int)info.tcpi_unacked;
}

// Swift's Glibc module does not export epoll or eventfd; HangUpWatcher watches parked
// connections' sockets with them.
#include <sys/epoll.h>
#include <sys/eventfd.h>

// accept4 is declared only with _GNU_SOURCE, which the module's other headers must not see:
// declared here as glibc exports it. The acceptor's sockets are non-blocking (libmicrohttpd's
// epoll mode requires it) and closed on exec, set atomically with the accept.
extern int accept4(int fd, struct sockaddr *address, socklen_t *length, int flags);
static inline int catbird_accept(int listener, struct sockaddr_storage *address, socklen_t *length) {
    return accept4(listener, (struct sockaddr *)address, length, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

// MHD_get_daemon_info is variadic: this returns the epoll descriptor of a daemon started with
// MHD_USE_EPOLL and without its own polling thread (MHD_DAEMON_INFO_EPOLL_FD), or -1.
static inline int catbird_mhd_epoll_fd(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_EPOLL_FD);
    return info == NULL ? -1 : info->epoll_fd;
}

// Adds `fd` to the epoll set `epoll_fd` for reading (level-triggered) with a NULL data pointer,
// which libmicrohttpd 0.9.75's epoll loop skips (daemon.c, MHD_epoll: "shutdown signal!"): the
// event only ends its wait. WorkerLoop wakes a daemon's loop this way.
static inline int catbird_epoll_add_unmarked(int epoll_fd, int fd) {
    struct epoll_event event;
    memset(&event, 0, sizeof event);
    event.events = EPOLLIN;
    event.data.ptr = NULL;
    return epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &event);
}

// MHD_get_connection_info is variadic: this returns the connection's socket context, the pointer
// the MHD_OPTION_NOTIFY_CONNECTION callback stored when the connection started
// (MHD_CONNECTION_INFO_SOCKET_CONTEXT), or NULL. ConnectionWatch keeps its record there.
static inline void *catbird_mhd_socket_context(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info == NULL ? NULL : info->socket_context;
}

// Milliseconds since the last data segment arrived on the TCP socket `socket`
// (TCP_INFO's tcpi_last_data_recv), or -1 when unknown (not TCP). ConnectionWatch tells a
// request line trickled in slowly by it: libmicrohttpd has read the bytes, so none wait unread.
// When `peer_closed` is not NULL it is set to 1 when the peer has sent its end of stream (a FIN)
// and the socket has not been shut down here (TCP state CLOSE_WAIT), else 0: ConnectionWatch
// closes an idle connection whose FIN libmicrohttpd missed. When `bytes_received` is not NULL it
// is set to the data bytes the socket has received since it opened (tcpi_bytes_received, Linux
// 4.1 and later), or -1 when the kernel does not tell it: ConnectionWatch tells by it that bytes
// of a first request line arrived on a connection that has had no request yet (tester finding
// tester24a-F2: a line sent in one write just after the connection opened was not told by its
// time from the opening). glibc's struct tcp_info ends before that field, so the kernel's
// layout is continued here (a stable ABI: fields are only ever added at the end).
#include <netinet/tcp.h>
#include <stddef.h>
struct catbird_tcp_info {
    struct tcp_info base;
    uint64_t tcpi_pacing_rate;
    uint64_t tcpi_max_pacing_rate;
    uint64_t tcpi_bytes_acked;
    uint64_t tcpi_bytes_received;
};
_Static_assert(offsetof(struct catbird_tcp_info, tcpi_bytes_received) == 128, "Linux's struct tcp_info layout");
static inline long catbird_socket_ms_since_data_received(int socket, int *peer_closed, long long *bytes_received) {
    struct catbird_tcp_info info;
    socklen_t length = sizeof info;
    memset(&info, 0, sizeof info);
    if (peer_closed != NULL) *peer_closed = 0;
    if (bytes_received != NULL) *bytes_received = -1;
    if (getsockopt(socket, IPPROTO_TCP, TCP_INFO, &info, &length) != 0) return -1;
    if (peer_closed != NULL) *peer_closed = info.base.tcpi_state == TCP_CLOSE_WAIT;
    if (bytes_received != NULL && length >= offsetof(struct catbird_tcp_info, tcpi_bytes_received) + sizeof info.tcpi_bytes_received)
        *bytes_received = (long long)info.tcpi_bytes_received;
    return (long)info.base.tcpi_last_data_recv;
}

// The bytes of the TCP socket `socket`'s answer its peer has acknowledged (tcpi_bytes_acked,
// Linux 4.2 and later; -1 when the kernel does not tell it) in `bytes_acked`; returns the bytes
// written to the socket and not yet acknowledged (SIOCOUTQ), or -1 when unknown. ConnectionWatch
// tells by them a client that takes none of an answer's bytes (its receive window stays shut:
// the kernel's window probes are acknowledged, yet no byte of data is).
#include <linux/sockios.h>
static inline int catbird_socket_answer_progress(int socket, long long *bytes_acked) {
    struct catbird_tcp_info info;
    socklen_t length = sizeof info;
    int unacknowledged = 0;
    memset(&info, 0, sizeof info);
    *bytes_acked = -1;
    if (getsockopt(socket, IPPROTO_TCP, TCP_INFO, &info, &length) != 0) return -1;
    if (length >= offsetof(struct catbird_tcp_info, tcpi_bytes_acked) + sizeof info.tcpi_bytes_acked)
        *bytes_acked = (long long)info.tcpi_bytes_acked;
    return ioctl(socket, SIOCOUTQ, &unacknowledged) == 0 ? unacknowledged : -1;
}

// MHD_set_connection_option is variadic: this sets the connection's own idle timeout in seconds
// (MHD_CONNECTION_OPTION_TIMEOUT; 0: none). Call only on the connection's worker thread, while it
// is not suspended. ParkedConnections uses it so that libmicrohttpd 0.9.75 takes a resumed
// connection's answer before it reads from the socket (see ParkedConnections.suspend).
static inline enum MHD_Result catbird_mhd_set_connection_timeout(struct MHD_Connection *connection, unsigned int seconds) {
    return MHD_set_connection_option(connection, MHD_CONNECTION_OPTION_TIMEOUT, seconds);
}
