#include <zlib.h>

// inflateInit2 is a macro (inflateInit2_ with the library's version and the stream's size),
// which Swift cannot call. See https://zlib.net/manual.html#Advanced: windowBits 8..15 reads
// zlib data (RFC 1950), -8..-15 raw deflate (RFC 1951), +16 gzip only (RFC 1952), +32 zlib or
// gzip by their headers.
static inline int catbird_inflate_init(z_stream *stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}
