#include "app/cli/llm_http.h"

#include <curl/curl.h>

#include <cstdio>
#include <memory>
#include <mutex>

namespace sl::cli {
namespace {

size_t append(char* data, size_t size, size_t n, void* user)
{
    auto* out = static_cast<std::string*>(user);
    constexpr size_t kMaxReply = 16u << 20;   // an answer larger than 16 MiB is not a review
    if (out->size() + size * n > kMaxReply)
        return 0;                             // aborts the transfer (CURLE_WRITE_ERROR)
    out->append(data, size * n);
    return size * n;
}

} // namespace

HttpReply http_post_json(const std::string& url, const std::string& body, const std::string& api_key,
                         long timeout_ms)
{
    static std::once_flag init;
    std::call_once(init, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
    HttpReply reply;
    std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), &curl_easy_cleanup);
    if (!curl) {
        reply.error = "could not start libcurl";
        return reply;
    }
    curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/json");
    std::string auth;
    if (!api_key.empty()) {
        auth = "Authorization: Bearer " + api_key;
        headers = curl_slist_append(headers, auth.c_str());
    }
    std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> header_list(headers, &curl_slist_free_all);
    char errbuf[CURL_ERROR_SIZE] = {};
    CURL* c = curl.get();
    curl_easy_setopt(c, CURLOPT_URL, url.c_str());
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.c_str());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, &append);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &reply.body);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
    const CURLcode rc = curl_easy_perform(c);
    if (rc != CURLE_OK) {
        reply.error = errbuf[0] ? errbuf : curl_easy_strerror(rc);
        if (rc == CURLE_OPERATION_TIMEDOUT) {
            char secs[32];
            std::snprintf(secs, sizeof secs, "%.1f", static_cast<double>(timeout_ms) / 1000.0);
            reply.error = std::string("no answer within ") + secs + " s (" + reply.error + ")";
        }
        reply.body.clear();
        return reply;
    }
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &reply.status);
    return reply;
}

} // namespace sl::cli
