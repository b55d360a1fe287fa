#pragma once
// The LLM reviewer's transport (issue 19): one HTTPS/HTTP POST of a JSON body to an OpenAI-compatible endpoint with
// libcurl, bounded by a timeout. Only analyze --llm-endpoint calls it; with no endpoint nothing is sent anywhere.
#include <string>

namespace sl::cli {

struct HttpReply {
    long status = 0;            // HTTP status, 0 when there was no answer
    std::string body;
    std::string error;          // transport error (timeout, refused, TLS), empty when an answer came
};

// POSTs body (JSON) to url with "Authorization: Bearer <api_key>" when api_key is not empty. Never throws.
HttpReply http_post_json(const std::string& url, const std::string& body, const std::string& api_key,
                         long timeout_ms);

// chat_completions_url(): analysis/diagnosis/review.h.

} // namespace sl::cli
