#pragma once
// The optional LLM reviewer in the workbench (issue 19; the CLI's is `analyze --llm-endpoint`): the findings and
// their evidence as JSON (analysis/diagnosis/review.h builds the request and judges the answer: verdicts that cite
// no evidence id of their finding, or contradict it, are dropped and said so) POSTed with Qt Network to an
// OpenAI-compatible endpoint. Off by default: with no endpoint nothing is sent anywhere. The request goes out
// asynchronously (QNetworkAccessManager), so the GUI thread never waits for the server; a timeout, an HTTP error or a
// malformed answer is a review with status "failed", and the findings stay as they are.

#include <QNetworkReply>
#include <QObject>
#include <QPointer>
#include <QString>
#include <memory>

#include "analysis/diagnosis/review.h"
#include "analysis/pipeline.h"
#include "model/workbench_settings.h"   // ReviewerSettings

class QNetworkAccessManager;

namespace sl {

using ReviewPtr = std::shared_ptr<const Review>;

class LlmReviewer : public QObject {
    Q_OBJECT
public:
    explicit LlmReviewer(QObject* parent = nullptr);
    ~LlmReviewer() override;

    void setSettings(const ReviewerSettings& settings) { settings_ = settings; }
    const ReviewerSettings& settings() const { return settings_; }

    // Sends the diagnosis' findings for review; reviewed() follows. Returns false, sending nothing, when no endpoint
    // is set, the endpoint is not an http(s) URL, or there is no finding. A newer call aborts an older one.
    bool review(std::shared_ptr<const Diagnosis> diagnosis);
    bool isRunning() const { return reply_ != nullptr; }
    void abort();

signals:
    // status "ok" (verdicts and drops) or "failed" (error says why); the findings it judged are the diagnosis'.
    void reviewed(sl::ReviewPtr review, std::shared_ptr<const sl::Diagnosis> diagnosis);

private:
    QNetworkAccessManager* nam_;
    QPointer<QNetworkReply> reply_;
    ReviewerSettings settings_;
};

} // namespace sl
