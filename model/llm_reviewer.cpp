#include "model/llm_reviewer.h"

#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QUrl>

namespace sl {

LlmReviewer::LlmReviewer(QObject* parent) : QObject(parent), nam_(new QNetworkAccessManager(this))
{
    qRegisterMetaType<sl::ReviewPtr>("sl::ReviewPtr");
}

LlmReviewer::~LlmReviewer() { abort(); }

void LlmReviewer::abort()
{
    if (QNetworkReply* r = reply_) {
        reply_ = nullptr;
        r->disconnect(this);
        r->abort();
        r->deleteLater();
    }
}

bool LlmReviewer::review(std::shared_ptr<const Diagnosis> diagnosis)
{
    abort();
    if (!settings_.enabled() || !diagnosis || diagnosis->eval.findings.empty())
        return false;
    const QUrl url(QString::fromStdString(chat_completions_url(settings_.endpoint.trimmed().toStdString())));
    if (!url.isValid() || (url.scheme() != QLatin1String("http") && url.scheme() != QLatin1String("https")))
        return false;
    ReviewRequestOptions ro;
    ro.model = settings_.model.toStdString();
    ro.allow_paths = settings_.allowPaths;
    const QByteArray body = QByteArray::fromStdString(review_request(diagnosis->eval.findings, ro).dump());
    QNetworkRequest req(url);
    req.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
    req.setTransferTimeout(std::max(1, settings_.timeoutS) * 1000);
    const QByteArray key = settings_.keyEnv.isEmpty() ? QByteArray() : qgetenv(settings_.keyEnv.toLocal8Bit().constData());
    if (!key.isEmpty())
        req.setRawHeader("Authorization", "Bearer " + key);
    QNetworkReply* reply = nam_->post(req, body);
    reply_ = reply;
    const size_t maxFindings = ro.max_findings;
    const std::string endpoint = url.toString().toStdString(), model = ro.model;
    connect(reply, &QNetworkReply::finished, this, [this, reply, diagnosis, maxFindings, endpoint, model] {
        if (reply_ != reply)
            return;
        reply_ = nullptr;
        reply->deleteLater();
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        Review r;
        if (reply->error() == QNetworkReply::OperationCanceledError || reply->error() == QNetworkReply::TimeoutError)
            r = failed_review("no answer within " + std::to_string(settings_.timeoutS) + " s");
        else if (status != 0 && status != 200)
            r = failed_review("HTTP " + std::to_string(status) + " from the endpoint");
        else if (reply->error() != QNetworkReply::NoError)
            r = failed_review(reply->errorString().toStdString());
        else
            r = parse_review_response(reply->readAll().toStdString(), diagnosis->eval.findings, maxFindings);
        r.endpoint = endpoint;
        if (r.model.empty())
            r.model = model;
        emit reviewed(std::make_shared<const Review>(std::move(r)), diagnosis);
    });
    return true;
}

} // namespace sl
