#include <curl/curl.h>

// curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are variadic, which Swift cannot
// call: one typed wrapper per argument type Catbird passes.
// See https://curl.se/libcurl/c/curl_easy_setopt.html and https://curl.se/libcurl/c/curl_easy_getinfo.html

/// A `long` option (flags, timeouts in milliseconds, sizes).
static inline CURLcode catbird_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

/// A `curl_off_t` option (the `_LARGE` sizes).
static inline CURLcode catbird_curl_setopt_offset(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

/// A pointer option: a C string (copied by libcurl), a `curl_slist`, or callback user data.
static inline CURLcode catbird_curl_setopt_pointer(CURL *handle, CURLoption option, const void *value) {
    return curl_easy_setopt(handle, option, value);
}

/// The write, header and read callbacks, which share this signature.
typedef size_t (*catbird_curl_data_callback)(char *buffer, size_t size, size_t count, void *userdata);
static inline CURLcode catbird_curl_setopt_callback(CURL *handle, CURLoption option, catbird_curl_data_callback value) {
    return curl_easy_setopt(handle, option, value);
}

/// A `long` transfer fact, e.g. CURLINFO_RESPONSE_CODE.
static inline long catbird_curl_getinfo_long(CURL *handle, CURLINFO info) {
    long value = 0;
    curl_easy_getinfo(handle, info, &value);
    return value;
}

/// CURLINFO_PRIVATE: the pointer set with CURLOPT_PRIVATE.
static inline void *catbird_curl_private(CURL *handle) {
    char *value = NULL;
    curl_easy_getinfo(handle, CURLINFO_PRIVATE, &value);
    return value;
}

/// A `long` multi option, e.g. CURLMOPT_MAX_HOST_CONNECTIONS.
static inline CURLMcode catbird_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

/// The finished transfer's result code from a CURLMSG_DONE message (a union member Swift reads
/// awkwardly), or -1 for any other message.
static inline int catbird_curl_done_result(const CURLMsg *message) {
    return message->msg == CURLMSG_DONE ? (int)message->data.result : -1;
}
