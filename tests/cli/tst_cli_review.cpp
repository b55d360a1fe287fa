// analyze --llm-endpoint against a local stub of an OpenAI-compatible server (issue 19): agree, disagree without
// citation, HTTP 500, malformed answer, timeout and a refused connection. In every case the findings are exactly
// those of a run without the reviewer, the command succeeds, and what was sent holds the findings' evidence ids but
// neither the trace nor its path. Without --llm-endpoint there is no "review" key.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "tests/support/test_env.h"

using nlohmann::json;

namespace {

std::string cli() { return SIGHTLINE_CLI; }

// One-connection-at-a-time HTTP/1.1 stub on 127.0.0.1: records each request and answers with `respond(request)`,
// which returns {status, body} (status 0: answer nothing, after waiting `delay_ms`).
class StubServer {
public:
    struct Answer {
        int status = 200;
        std::string body;
        int delay_ms = 0;
    };
    using Responder = std::function<Answer(const std::string& headers, const std::string& body)>;

    explicit StubServer(Responder respond) : respond_(std::move(respond))
    {
        fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
        int one = 1;
        ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        addr.sin_port = 0;
        ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
        ::listen(fd_, 4);
        socklen_t len = sizeof addr;
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
        port_ = ntohs(addr.sin_port);
        thread_ = std::thread([this] { serve(); });
    }
    ~StubServer()
    {
        stop_ = true;
        ::shutdown(fd_, SHUT_RDWR);
        ::close(fd_);
        thread_.join();
    }
    std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }
    std::string last_headers() { std::lock_guard<std::mutex> l(m_); return headers_; }
    std::string last_body() { std::lock_guard<std::mutex> l(m_); return body_; }
    int requests() const { return requests_; }

private:
    void serve()
    {
        while (!stop_) {
            const int c = ::accept(fd_, nullptr, nullptr);
            if (c < 0)
                return;
            std::string in;
            char buf[65536];
            size_t header_end = std::string::npos, need = 0;
            while (true) {
                const ssize_t n = ::recv(c, buf, sizeof buf, 0);
                if (n <= 0)
                    break;
                in.append(buf, static_cast<size_t>(n));
                if (header_end == std::string::npos && (header_end = in.find("\r\n\r\n")) != std::string::npos) {
                    const auto cl = in.find("Content-Length: ");
                    need = cl == std::string::npos ? 0 : std::stoul(in.substr(cl + 16));
                }
                if (header_end != std::string::npos && in.size() >= header_end + 4 + need)
                    break;
            }
            const std::string headers = in.substr(0, header_end), body = in.substr(header_end + 4);
            {
                std::lock_guard<std::mutex> l(m_);
                headers_ = headers;
                body_ = body;
            }
            ++requests_;
            const Answer a = respond_(headers, body);
            if (a.delay_ms)
                std::this_thread::sleep_for(std::chrono::milliseconds(a.delay_ms));
            if (a.status) {
                const std::string reply = "HTTP/1.1 " + std::to_string(a.status) +
                                          " X\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: " +
                                          std::to_string(a.body.size()) + "\r\n\r\n" + a.body;
                ::send(c, reply.data(), reply.size(), MSG_NOSIGNAL);
            }
            ::close(c);
        }
    }

    Responder respond_;
    int fd_ = -1;
    int port_ = 0;
    std::thread thread_;
    std::atomic<bool> stop_{false};
    std::atomic<int> requests_{0};
    std::mutex m_;
    std::string headers_, body_;
};

std::string chat(const json& reviews)
{
    return json{{"model", "stub-1"},
                {"choices", {{{"message", {{"role", "assistant"}, {"content", json{{"reviews", reviews}}.dump()}}}}}}}
        .dump();
}

// The findings the request carried.
json sent_findings(const std::string& body)
{
    const json req = json::parse(body);
    return json::parse(req["messages"][1]["content"].get<std::string>())["findings"];
}

class CliReview : public ::testing::Test {
protected:
    static void SetUpTestSuite()
    {
        dir_ = sl::test::scratch_dir("cli_review");
        trace_ = dir_ + "/host_starved.sqlite";
        std::string out;
        ASSERT_EQ(sl::test::run_command(cli() + " generate --steps 16 --layers 4 --prefill 1 --host-starved --quiet -o " +
                                            trace_, &out, true), 0) << out;
        ASSERT_EQ(sl::test::run_command(cli() + " analyze " + trace_ + " --format json", &plain_out_), 0);
        plain_ = json::parse(plain_out_);
        ASSERT_FALSE(plain_["findings"].empty()) << "the planted host-starved trace has findings to review";
    }
    json analyze_with(const std::string& endpoint, const std::string& extra = "", int* rc = nullptr)
    {
        std::string out;
        const int code = sl::test::run_command("SIGHTLINE_TEST_KEY=sekret " + cli() + " analyze " + trace_ +
                                               " --format json --llm-endpoint " + endpoint +
                                               " --llm-key-env SIGHTLINE_TEST_KEY --llm-model m1 " + extra, &out);
        if (rc)
            *rc = code;
        EXPECT_EQ(code, 0) << out;
        const json j = json::parse(out, nullptr, false);
        EXPECT_FALSE(j.is_discarded()) << out;
        // The rule engine's output never depends on the reviewer.
        EXPECT_EQ(j["findings"], plain_["findings"]);
        EXPECT_EQ(j["headline"], plain_["headline"]);
        return j;
    }
    static std::string dir_, trace_, plain_out_;
    static json plain_;
};
std::string CliReview::dir_, CliReview::trace_, CliReview::plain_out_;
json CliReview::plain_;

} // namespace

TEST_F(CliReview, NoEndpointSendsNothingAndAddsNoReview)
{
    EXPECT_FALSE(plain_.contains("review"));
    std::string out;
    ASSERT_EQ(sl::test::run_command(cli() + " analyze " + trace_, &out), 0);
    EXPECT_EQ(out.find("Reviewer"), std::string::npos);
}

TEST_F(CliReview, AgreementCitingMeasuredEvidenceIsKept)
{
    StubServer stub([](const std::string&, const std::string& body) {
        const json f = sent_findings(body)[0];
        return StubServer::Answer{200, chat(json::array({{{"finding", f["id"]}, {"verdict", "agree"},
                                                          {"explanation", "the cited figure supports it"},
                                                          {"cites", {{{"id", f["evidence"][0]["id"]},
                                                                      {"value", f["evidence"][0]["value"]}}}}}}))};
    });
    const json j = analyze_with(stub.url());
    ASSERT_EQ(stub.requests(), 1);
    EXPECT_NE(stub.last_headers().find("POST /v1/chat/completions "), std::string::npos) << stub.last_headers();
    EXPECT_NE(stub.last_headers().find("Authorization: Bearer sekret"), std::string::npos);
    const std::string sent = stub.last_body();
    EXPECT_EQ(sent.find(dir_), std::string::npos) << "the trace's path was sent";
    EXPECT_EQ(sent.find("SQLite"), std::string::npos);
    const json findings = sent_findings(sent);
    EXPECT_EQ(findings.size(), std::min<size_t>(plain_["findings"].size(), 20));
    EXPECT_EQ(findings[0]["rule"], plain_["findings"][0]["rule"]);
    EXPECT_EQ(json::parse(sent)["model"], "m1");

    ASSERT_TRUE(j.contains("review"));
    EXPECT_EQ(j["review"]["status"], "ok");
    EXPECT_EQ(j["review"]["model"], "stub-1");
    ASSERT_EQ(j["review"]["verdicts"].size(), 1u);
    EXPECT_EQ(j["review"]["verdicts"][0]["verdict"], "agree");
    EXPECT_EQ(j["review"]["verdicts"][0]["rule"], plain_["findings"][0]["rule"]);
    EXPECT_TRUE(j["review"]["dropped"].empty());
}

TEST_F(CliReview, UncitedDisagreementIsDroppedAndSaid)
{
    StubServer stub([](const std::string&, const std::string& body) {
        const json f = sent_findings(body)[0];
        return StubServer::Answer{200, chat(json::array({{{"finding", f["id"]}, {"verdict", "disagree"},
                                                          {"explanation", "trust me"}, {"cites", json::array()}}}))};
    });
    const json j = analyze_with(stub.url());
    EXPECT_EQ(j["review"]["status"], "ok");
    EXPECT_TRUE(j["review"]["verdicts"].empty());
    ASSERT_EQ(j["review"]["dropped"].size(), 1u);
    EXPECT_EQ(j["review"]["dropped"][0]["reason"], "cites no evidence");

    std::string text;
    ASSERT_EQ(sl::test::run_command(cli() + " analyze " + trace_ + " --llm-endpoint " + stub.url(), &text), 0);
    EXPECT_NE(text.find("Reviewer (LLM, advisory"), std::string::npos) << text;
    EXPECT_NE(text.find("dropped f1: cites no evidence"), std::string::npos) << text;
}

TEST_F(CliReview, ServerErrorsMalformedAnswersTimeoutsAndRefusalsLeaveTheFindings)
{
    {
        StubServer stub([](const std::string&, const std::string&) { return StubServer::Answer{500, "{}"}; });
        const json j = analyze_with(stub.url());
        EXPECT_EQ(j["review"]["status"], "failed");
        EXPECT_EQ(j["review"]["error"], "HTTP 500 from the endpoint");
    }
    {
        StubServer stub([](const std::string&, const std::string&) {
            return StubServer::Answer{200, "{\"choices\": [{\"message\": {\"content\": \"I think so.\"}}]}"};
        });
        const json j = analyze_with(stub.url());
        EXPECT_EQ(j["review"]["status"], "failed");
        EXPECT_NE(j["review"]["error"].get<std::string>().find("JSON asked for"), std::string::npos);
    }
    {
        StubServer stub([](const std::string&, const std::string&) { return StubServer::Answer{200, chat(json::array()), 3000}; });
        const json j = analyze_with(stub.url(), "--llm-timeout 0.5");
        EXPECT_EQ(j["review"]["status"], "failed");
        EXPECT_NE(j["review"]["error"].get<std::string>().find("no answer within 0.5 s"), std::string::npos)
            << j["review"].dump();
    }
    {
        int port = 0;
        {
            StubServer closed([](const std::string&, const std::string&) { return StubServer::Answer{}; });
            port = std::stoi(closed.url().substr(17));
        }   // closed again: nothing listens there now
        const json j = analyze_with("http://127.0.0.1:" + std::to_string(port) + "/v1");
        EXPECT_EQ(j["review"]["status"], "failed");
        EXPECT_FALSE(j["review"]["error"].get<std::string>().empty());
    }
}

TEST_F(CliReview, BadEndpointIsAUsageError)
{
    std::string out;
    EXPECT_EQ(sl::test::run_command(cli() + " analyze " + trace_ + " --llm-endpoint localhost:8080", &out, true), 64)
        << out;
    EXPECT_NE(out.find("--llm-endpoint needs an http:// or https:// URL"), std::string::npos) << out;
}
