#include "model/loop_job.h"

#include <QMetaObject>
#include <QString>

#include <fstream>

#include "analysis/diagnosis/knowledge_base.h"
#include "analysis/io/load.h"
#include "analysis/report/report_markdown.h"
#include "analysis/trace/errors.h"
#include "model/chart_render.h"

namespace sl {

std::function<bool(const std::string&, const std::string&)> markdownReportWriter(report::PipelineOptions options,
                                                                               report::Lang lang)
{
    return [options = std::move(options), lang](const std::string& traceFile, const std::string& md) {
        try {
            const Trace trace = load_traces({traceFile});
            report::PipelineOptions po = options;
            po.trace_files = {traceFile};
            const report::PipelineResults results = report::run_pipeline(trace, po);
            std::vector<std::string> inputs = {traceFile};
            for (const std::string* extra : {&po.model_config, &po.ncu_file})
                if (!extra->empty())
                    inputs.push_back(*extra);
            report::ReportOptions ro;
            ro.lang = lang;
            ro.detail = report::Detail::Summary;   // `report --format md`'s default: the report people forward
            report::describe_workload(ro, po);
            const report::Report rep = report::build_report(report::report_inputs(trace, results, ro, inputs));
            report::MarkdownOptions mo;
            mo.write_image = markdownPngWriter(QString::fromStdString(md), rep.lang);
            const std::string text = report::to_markdown(rep, mo) + "\n";
            std::ofstream out(md, std::ios::binary | std::ios::trunc);
            out << text;
            return static_cast<bool>(out);
        } catch (const std::exception&) {
            return false;
        }
    };
}

LoopJob::LoopJob(QObject* parent) : QObject(parent) { pool_.setMaxThreadCount(1); }

LoopJob::~LoopJob()
{
    cancel();
    pool_.waitForDone();
}

void LoopJob::cancel()
{
    if (cancel_)
        cancel_->store(true);
}

void LoopJob::waitForDone() { pool_.waitForDone(); }

void LoopJob::post(std::function<void()> fn)
{
    QMetaObject::invokeMethod(this, std::move(fn), Qt::QueuedConnection);
}

void LoopJob::launch(std::function<void(const LoopIo&)> work)
{
    cancel();
    cancel_ = std::make_shared<std::atomic<bool>>(false);
    running_ = true;
    const quint64 gen = ++generation_;
    auto flag = cancel_;
    const int64_t grace = graceMs_;
    pool_.start([this, gen, flag, grace, work = std::move(work)] {
        LoopIo io;
        io.print = [this](const std::string& text) {
            const QString t = QString::fromStdString(text);
            post([this, t] { emit logText(t); });
        };
        io.on_run = [this](int run, int runs) { post([this, run, runs] { emit runStarted(run, runs); }); };
        io.cancel = flag.get();
        io.prefix.clear();
        io.cancel_name = "Cancel";
        io.grace_ms = grace;
        try {
            work(io);
        } catch (const TraceError& e) {
            const QString m = QString::fromStdString(e.what());
            post([this, m] { emit failed(m); });
        } catch (const KbError& e) {
            const QString m = QString::fromStdString(e.what());
            post([this, m] { emit failed(m); });
        } catch (const std::exception& e) {
            const QString m = QString::fromStdString(e.what());
            post([this, m] { emit failed(m); });
        }
        post([this, gen] {
            if (gen == generation_)
                running_ = false;
            emit finished();
        });
    });
}

void LoopJob::startProfile(const ProfileRequest& request)
{
    launch([this, request](const LoopIo& io) {
        const ToolInfo nsys = find_nsys();
        if (!nsys.usable()) {
            const QString m = QString::fromStdString(nsys.error);
            post([this, m] { emit failed(m); });
            return;
        }
        io.say("using " + nsys.path + " (" + nsys.version_text + ")\n");
        const ProfileOutcome o = profile_command(request, nsys, io);
        const QString rep = o.any_ok() ? QString::fromStdString(o.runs[o.representative].sqlite) : QString();
        const QString manifest = QString::fromStdString(o.manifest_path);
        const bool interrupted = o.interrupted, toolFailed = o.tool_failed;
        post([=, this] { emit profileFinished(rep, manifest, interrupted, toolFailed); });
    });
}

void LoopJob::startPlan(const DeepDiveRequest& request)
{
    launch([this, request](const LoopIo&) {
        auto plan = std::make_shared<DeepDivePlan>(deep_dive_plan(request));
        const ToolInfo ncu = find_ncu();
        set_ncu_commands(*plan, request, ncu);
        const QString err = QString::fromStdString(ncu.error);
        std::shared_ptr<const DeepDivePlan> p = plan;
        post([this, p, err] { emit planReady(p, err); });
    });
}

void LoopJob::startDeepDive(const DeepDiveRequest& request, std::shared_ptr<const DeepDivePlan> plan)
{
    launch([this, request, plan](const LoopIo& io) {
        const ToolInfo ncu = find_ncu();
        if (!ncu.usable()) {
            const QString m = QString::fromStdString(ncu.error);
            post([this, m] { emit failed(m); });
            return;
        }
        io.say("using " + ncu.path + " (" + ncu.version_text + ")\n");
        DeepDivePlan p = *plan;
        set_ncu_commands(p, request, ncu);
        const DeepDiveOutcome o = deep_dive_run(p, request, io);
        QString msg;
        if (o.ok) {
            std::string s = std::to_string(o.launches) + " ncu launch(es) in " + p.csv + ", " + std::to_string(o.joined) +
                            " joined to trace kernels\n";
            for (const auto& a : o.added)
                s += "  " + a + "\n";
            io.say("\n" + s);
            msg = QString::fromStdString(s);
        } else
            msg = QString::fromStdString(o.error);
        const QString trace = QString::fromStdString(p.trace), csv = QString::fromStdString(p.csv);
        const bool ok = o.ok;
        post([=, this] { emit deepDiveFinished(ok, trace, csv, msg); });
    });
}

} // namespace sl
