#pragma once
// The optional LLM reviewer (seed 004's "LLM discriminator"; issue 19): a second opinion on the findings, bound to
// their evidence. This file is the part without a network: the request an OpenAI-compatible chat endpoint receives,
// and the checks its answer must pass. The transport lives with the program that sends it (app/cli/llm_http.cpp).
//
// What is sent: per finding an id "f<i>" (i from 1, in ranked order), its rule, verdict, severity, English title and
// explanation, the bounded gain and every evidence item with an id "f<i>.e<j>" (metric, value, comparison,
// threshold, source). Never the trace, never file paths: any absolute path in a text is replaced by "<path>" unless
// ReviewRequestOptions::allow_paths.
//
// What is kept from the answer: per finding, agree or disagree and a short explanation that cites at least one of
// that finding's evidence ids. A claim is dropped, and the drop said with its reason, when it cites nothing, cites an
// id that is not that finding's, quotes an evidence value that is not the value Sightline measured (more than 1 %
// off: a contradiction of the evidence), names no known finding, or reviews a finding twice. An answer that is not
// the JSON asked for leaves no verdict at all (status "failed"). The findings themselves are never changed: the
// review is advisory, shown beside them.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/diagnosis/findings.h"

namespace sl {

struct ReviewRequestOptions {
    std::string model;            // the endpoint's model name ("" lets the server choose)
    bool allow_paths = false;     // keep absolute paths in the texts (off: replaced by "<path>")
    size_t max_findings = 20;     // the highest-ranked findings only
};

// The chat-completions body: {model, temperature 0, messages [system, user]}; the user message is the findings as
// JSON (see above) and the answer format asked for.
nlohmann::json review_request(const std::vector<Finding>& findings, const ReviewRequestOptions& options);

// Replaces every absolute path ("/a/b", "~/x", "C:\\x") in text by "<path>".
std::string scrub_paths(const std::string& text);

struct ReviewVerdict {
    std::string finding;                 // "f1"
    std::string rule, subject;
    bool agree = true;
    std::string explanation;
    std::vector<std::string> cites;      // evidence ids, all of them this finding's
};

struct ReviewDrop {
    std::string finding;                 // as the reviewer named it (may be unknown)
    std::string reason;
};

struct Review {
    std::string status = "not-run";      // "ok", "failed" (no usable answer), "not-run"
    std::string endpoint, model;
    std::string error;                   // why it failed (HTTP status, timeout, malformed answer)
    std::vector<ReviewVerdict> verdicts;
    std::vector<ReviewDrop> dropped;
};

// Judges the endpoint's HTTP body (a chat-completions response whose message content is the JSON asked for; a
// ```json fence around it is accepted) against the findings the request was built from (same order and
// max_findings). Never throws: a malformed answer gives status "failed" with the reason.
Review parse_review_response(const std::string& http_body, const std::vector<Finding>& findings,
                             size_t max_findings = 20);

// A review that could not be had (timeout, connection refused, HTTP 500): status "failed", the error kept.
Review failed_review(std::string error);

// The chat-completions URL of an endpoint: URL as given when it ends in /chat/completions, else
// URL + "/chat/completions" ("http://localhost:8080/v1" -> "http://localhost:8080/v1/chat/completions").
// Shared by the CLI's libcurl transport and the GUI's Qt Network one.
std::string chat_completions_url(const std::string& endpoint);

// JSON (analyze's "review" key, documented in resources/schemas/analysis.md) and text.
nlohmann::json review_to_json(const Review& review);
std::string review_to_text(const Review& review);

} // namespace sl
