#pragma once
// A local stand-in for an OpenAI-compatible chat endpoint, for the LLM reviewer's Qt tests (tests/model/
// tst_llm_reviewer.cpp, tests/widgets/tst_findings_review.cpp): a QTcpServer on 127.0.0.1 that records each HTTP
// request (head and body) and answers with `status` and `body`, or never (silent, for the timeout). `connections`
// counts every connection attempt, so a test can show that nothing was sent. Header-only; setup only, no assertion.

#include <QByteArray>
#include <QList>
#include <QObject>
#include <QString>
#include <QTcpServer>
#include <QTcpSocket>
#include <memory>

#include <nlohmann/json.hpp>

namespace sl::testing {

class LlmStubServer : public QObject {
public:
    int status = 200;
    QByteArray body;
    bool silent = false;
    int connections = 0;
    QList<QByteArray> heads, bodies;
    QTcpServer server;

    LlmStubServer()
    {
        server.listen(QHostAddress::LocalHost, 0);
        connect(&server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket* s = server.nextPendingConnection()) {
                ++connections;
                auto buf = std::make_shared<QByteArray>();
                connect(s, &QTcpSocket::readyRead, this, [this, s, buf] {
                    *buf += s->readAll();
                    const qsizetype end = buf->indexOf("\r\n\r\n");
                    if (end < 0)
                        return;
                    const QByteArray head = buf->left(end);
                    qsizetype length = 0;
                    for (const QByteArray& line : head.split('\n'))
                        if (line.toLower().startsWith("content-length:"))
                            length = line.mid(15).trimmed().toLongLong();
                    if (buf->size() < end + 4 + length)
                        return;
                    heads << head;
                    bodies << buf->mid(end + 4, length);
                    buf->clear();
                    if (silent)
                        return;
                    s->write("HTTP/1.1 " + QByteArray::number(status) + " X\r\nContent-Type: application/json\r\n"
                             "Content-Length: " + QByteArray::number(body.size()) + "\r\nConnection: close\r\n\r\n" + body);
                    s->disconnectFromHost();
                });
            }
        });
    }
    QString url() const { return QStringLiteral("http://127.0.0.1:%1/v1").arg(server.serverPort()); }

    // A chat-completions answer whose message content is `content` as JSON text.
    static QByteArray chat(const nlohmann::json& content)
    {
        return QByteArray::fromStdString(
            nlohmann::json{{"model", "stub-1"},
                           {"choices", {{{"index", 0}, {"message", {{"role", "assistant"}, {"content", content.dump()}}}}}}}
                .dump());
    }
};

} // namespace sl::testing
