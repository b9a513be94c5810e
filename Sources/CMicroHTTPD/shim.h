// microhttpd.h expects these system headers to be included first.
#include <stdint.h>
#include <stdarg.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

// MHD_start_daemon is variadic, which Swift cannot call: this wrapper passes the fixed set of
// options Catbird uses. See https://www.gnu.org/software/libmicrohttpd/manual/html_node/microhttpd_002dinit.html
typedef void *(*catbird_mhd_uri_log_callback)(void *cls, const char *uri, struct MHD_Connection *connection);

static inline struct MHD_Daemon *catbird_mhd_start(unsigned int flags,
                                                   const struct sockaddr *address,
                                                   unsigned int thread_pool_size,
                                                   unsigned int connection_timeout_seconds,
                                                   size_t connection_memory_limit_bytes,
                                                   unsigned int connection_limit,
                                                   MHD_AccessHandlerCallback handler,
                                                   MHD_RequestCompletedCallback completed,
                                                   catbird_mhd_uri_log_callback uri_log,
                                                   void *context) {
    return MHD_start_daemon(flags, 0, NULL, NULL, handler, context,
                            MHD_OPTION_SOCK_ADDR, address,
                            MHD_OPTION_THREAD_POOL_SIZE, thread_pool_size,
                            MHD_OPTION_CONNECTION_TIMEOUT, connection_timeout_seconds,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, connection_memory_limit_bytes,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, context,
                            MHD_OPTION_URI_LOG_CALLBACK, uri_log, context,
                            MHD_OPTION_END);
}

// MHD_get_daemon_info is variadic: this returns the port the daemon is bound to (0 on failure).
static inline uint16_t catbird_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

// MHD_get_connection_info is variadic: this returns the client's address (IPv4 or IPv6) as text,
// written into `buffer` (at least 46 bytes, INET6_ADDRSTRLEN); an empty string when unknown.
#include <arpa/inet.h>
#include <netinet/in.h>
static inline void catbird_mhd_client_address(struct MHD_Connection *connection, char *buffer, size_t size) {
    buffer[0] = '\0';
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL) return;
    const struct sockaddr *address = info->client_addr;
    if (address->sa_family == AF_INET) {
        inet_ntop(AF_INET, &((const struct sockaddr_in *)address)->sin_addr, buffer, (socklen_t)size);
    } else if (address->sa_family == AF_INET6) {
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)address)->sin6_addr, buffer, (socklen_t)size);
    }
}

// MHD_get_connection_info is variadic: this returns the size in bytes of the request line and
// header section just parsed (MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE), or 0 when unknown.
static inline size_t catbird_mhd_request_header_size(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
    return info == NULL ? 0 : info->header_size;
}

// MHD_get_connection_info is variadic: this returns the connection's socket, or -1.
static inline int catbird_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

// Swift's Glibc module does not export epoll or eventfd; HangUpWatcher watches parked
// connections' sockets with them.
#include <sys/epoll.h>
#include <sys/eventfd.h>
