#include "widgets/roofline_view.h"

#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QContextMenuEvent>
#include <QCoreApplication>
#include <QEvent>
#include <QFontMetricsF>
#include <QHelpEvent>
#include <QGraphicsLineItem>
#include <QGraphicsSimpleTextItem>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLocale>
#include <QMenu>
#include <QMouseEvent>
#include <QScatterSeries>
#include <QStackedWidget>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <climits>
#include <cmath>
#include <map>
#include <memory>
#include <numbers>
#include <numeric>

#include "analysis/report/chart_svg.h"
#include "analysis/report/label_layout.h"
#include "analysis/roofline/roofline.h"
#include "analysis/trace/trace.h"
#include "model/document.h"
#include "model/roofline_model.h"
#include "model/selection.h"
#include "model/units.h"
#include "widgets/palette.h"

namespace sl {

namespace {

// The same prefill / decode colours as the report's charts (HTML, PDF, Markdown PNGs).
const QColor kPrefill(QLatin1String(report::kPrefillColor));
const QColor kDecode(QLatin1String(report::kDecodeColor));
const QColor kMixed(QLatin1String(report::kMixedColor));
const QColor kTraining(QLatin1String(report::kTrainingColor));
const QColor kNcu(0x2e, 0x9e, 0x5b);
const QColor kRoof(0x44, 0x44, 0x44);
const QColor kMemoryRoof(0x8a, 0x1c, 0x7c);
// Measured shape points, one series per operator family (shape_series_family).
const QColor kShapeGemm(0xc2, 0x1f, 0x3a);
const QColor kShapeAttention(0x0f, 0x8b, 0x8d);
const QColor kShapeNorm(0xb0, 0x7d, 0x0b);
const QColor kShapeOther(0x6e, 0x6e, 0x6e);

// Marker diameters of the measured size buckets (share of the largest measured total: < 1/30, < 1/3, rest).
constexpr double kBucketSize[3] = {8, 13, 19};
constexpr double kTheorySize = 10;
constexpr double kNcuSize = 11;
constexpr double kShapeSize[3] = {7, 10, 14};   // share of the largest shape point's kernel time: < 1/30, < 1/3, rest

QString axisLabel(int decade, bool intensity)
{
    if (intensity && decade < 0)
        return QLocale::c().toString(std::pow(10.0, decade), 'g', 6);
    return RooflineModel::formatSi(std::pow(10.0, decade));
}

QCategoryAxis* logAxis(int lo, int hi, bool intensity, const QString& title)
{
    auto* a = new QCategoryAxis;
    a->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    a->setStartValue(lo);
    for (int e = lo; e <= hi; ++e)
        a->append(axisLabel(e, intensity), e);
    a->setRange(lo, hi);
    a->setTitleText(title);
    QFont f = a->labelsFont();
    f.setPointSizeF(std::max(7.0, f.pointSizeF() - 1));
    a->setLabelsFont(f);
    QPen grid = a->gridLinePen();
    grid.setColor(QColor(0, 0, 0, 30));
    a->setGridLinePen(grid);
    return a;
}

QScatterSeries* scatter(const QString& name, QScatterSeries::MarkerShape shape, double size, const QColor& color,
                        bool hollow)
{
    auto* s = new QScatterSeries;
    s->setName(name);
    s->setMarkerShape(shape);
    s->setMarkerSize(size);
    QColor fill = color;
    if (hollow)
        fill.setAlpha(45);
    else
        fill.setAlpha(200);
    s->setColor(fill);
    s->setBorderColor(hollow ? color : color.darker(140));
    QPen pen(hollow ? color : color.darker(140));
    pen.setWidthF(hollow ? 1.6 : 1.0);
    s->setPen(pen);
    return s;
}

QString precisionGroupName(const std::vector<const RooflineRoof*>& group)
{
    QStringList names;
    for (const RooflineRoof* r : group)
        names << QString::fromStdString(r->name).toUpper();
    return names.join(QLatin1Char('/'));
}

// A phase as people say it ("" for none).
QString phaseWords(const std::string& phase)
{
    if (phase == "prefill")
        return QCoreApplication::translate("sl::RooflineView", "prefill");
    if (phase == "decode")
        return QCoreApplication::translate("sl::RooflineView", "decode");
    if (phase == "mixed")
        return QCoreApplication::translate("sl::RooflineView", "mixed steps");
    if (phase == "training")
        return QCoreApplication::translate("sl::RooflineView", "training iteration");
    return {};
}

QString elide(const QString& s, int n)
{
    return s.size() > n ? s.left(n - 1) + QChar(0x2026) : s;
}

} // namespace

RooflineView::RooflineView(Document* document, Selection* selection, QWidget* parent)
    : QWidget(parent), document_(document), selection_(selection)
{
    model_ = new RooflineModel(document, this);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    stack_ = new QStackedWidget(this);
    messageLabel_ = new QLabel(stack_);
    messageLabel_->setAlignment(Qt::AlignCenter);
    messageLabel_->setWordWrap(true);
    messageLabel_->setMargin(24);
    messageLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    view_ = new QChartView(stack_);
    view_->setRenderHint(QPainter::Antialiasing);
    view_->viewport()->setMouseTracking(true);
    view_->viewport()->installEventFilter(this);
    stack_->addWidget(messageLabel_);
    stack_->addWidget(view_);
    layout->addWidget(stack_);

    connect(model_, &QAbstractItemModel::modelReset, this, &RooflineView::rebuild);
    if (document_) {
        // The model rebuilds on these too; the message also depends on the inputs and the error.
        connect(document_, &Document::rooflineChanged, this, &RooflineView::updateMessage);
        connect(document_, &Document::traceChanged, this, &RooflineView::updateMessage);
    }
    if (selection_) {
        connect(selection_, &Selection::kernelNameChanged, this, &RooflineView::followKernelName);
        connect(selection_, &Selection::kernelChanged, this, &RooflineView::followKernel);
    }
    rebuild();
}

RooflineView::~RooflineView() = default;

QChart* RooflineView::chart() const
{
    return view_->chart();
}

bool RooflineView::hasRoofline() const
{
    return stack_->currentWidget() == view_;
}

QString RooflineView::message() const
{
    return hasRoofline() ? QString() : messageLabel_->text();
}

void RooflineView::updateMessage()
{
    const RooflineData& d = model_->rooflineData();
    if (d.valid) {
        stack_->setCurrentWidget(view_);
        return;
    }
    QString text;
    if (document_ && !document_->rooflineError().isEmpty()) {
        text = tr("The Roofline could not be computed:\n%1").arg(document_->rooflineError());
    } else if (document_ && document_->trace() && !document_->roofline() &&
               !document_->inputs().modelConfig.isEmpty()) {
        text = tr("Computing the Roofline for %1 …").arg(document_->inputs().modelConfig);
    } else {
        text = tr("No Roofline: it needs the model's config.json.\n\n"
                  "Open the config.json together with the trace (File › Open, select both files), or set a model "
                  "config in Settings › Preferences.");
    }
    messageLabel_->setText(text);
    stack_->setCurrentWidget(messageLabel_);
}

void RooflineView::rebuild()
{
    const RooflineData& d = model_->rooflineData();
    logPoints_.assign(d.points.size(), QPointF());
    markerRadius_.assign(d.points.size(), 0);
    drawOrder_.assign(d.points.size(), -1);
    markerShape_.assign(d.points.size(), QScatterSeries::MarkerShapeCircle);
    roofLabels_.clear();
    pointLabels_.clear();
    ridges_.clear();
    highlighted_ = -1;
    hoverText_.clear();
    kernelTimeNs_ = 0;
    if (const auto trace = document_ ? document_->trace() : nullptr)
        for (size_t k = 0; k < trace->kernels.size(); ++k)
            kernelTimeNs_ += double(trace->kernels.end[k] - trace->kernels.start[k]);

    auto* chart = new QChart;
    chart->setMargins(QMargins(4, 4, 4, 4));
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->legend()->setMarkerShape(QLegend::MarkerShapeFromSeries);
    chart->legend()->setShowToolTips(true);   // names elided in a narrow pane show in full on hover
    QFont legendFont = chart->legend()->font();
    legendFont.setPointSizeF(std::max(7.0, legendFont.pointSizeF() - 1));
    chart->legend()->setFont(legendFont);
    QString title = d.gpu_name.empty() ? tr("Roofline (GPU not in the spec database: no roofs)")
                                       : tr("Roofline on %1").arg(QString::fromStdString(d.gpu_name));
    if (d.ncu_aggregated)
        title += tr(" · ncu launches per kernel name");
    const bool anyShape = std::any_of(d.points.begin(), d.points.end(),
                                      [](const RooflinePoint& p) { return p.kind == RooflinePointKind::Shape; });
    if (anyShape)
        title += tr(" · measured from the trace's shapes");
    chart->setTitle(title);
    QFont titleFont = chart->titleFont();
    titleFont.setBold(true);
    chart->setTitleFont(titleFont);

    // Ranges in log10 space, whole decades, with the roofs and every point inside.
    double xmin = HUGE_VAL, xmax = -HUGE_VAL, ymin = HUGE_VAL, ymax = -HUGE_VAL;
    auto include = [&](double lx, double ly) {
        xmin = std::min(xmin, lx);
        xmax = std::max(xmax, lx);
        ymin = std::min(ymin, ly);
        ymax = std::max(ymax, ly);
    };
    for (size_t i = 0; i < d.points.size(); ++i) {
        logPoints_[i] = QPointF(std::log10(d.points[i].intensity), std::log10(d.points[i].flops_per_s));
        include(logPoints_[i].x(), logPoints_[i].y());
    }
    const double lbw = d.bandwidth > 0 ? std::log10(d.bandwidth) : NAN;
    double topPeak = NAN, topRidge = NAN;
    for (const RooflineRoof& r : d.roofs) {
        if (!r.precision)
            continue;
        if (std::isnan(topPeak) || std::log10(r.value) > topPeak) {
            topPeak = std::log10(r.value);
            topRidge = r.ridge > 0 ? std::log10(r.ridge) : NAN;
        }
        if (r.ridge > 0)
            include(std::log10(r.ridge), std::log10(r.value));
        else {
            ymax = std::max(ymax, std::log10(r.value));
            ymin = std::min(ymin, std::log10(r.value));
        }
    }
    if (!std::isfinite(xmin)) {
        xmin = -1;
        xmax = 3;
    }
    if (!std::isfinite(ymin)) {
        ymin = 9;
        ymax = 15;
    }
    // 1.3 free decades right of the last point or ridge: the roofs' labels sit there, clear of the points.
    int xlo = int(std::floor(xmin - 0.15)), xhi = int(std::ceil(xmax + 1.3));
    int ylo = int(std::floor(ymin - 0.15)), yhi = int(std::ceil(ymax + 0.25));
    if (xhi - xlo < 3)
        xhi = xlo + 3;
    if (yhi - ylo < 3)
        ylo = yhi - 3;

    auto* ax = logAxis(xlo, xhi, true, tr("Arithmetic intensity (FLOP/byte)"));
    auto* ay = logAxis(ylo, yhi, false, tr("Performance (FLOP/s)"));
    axisX_ = ax;
    axisY_ = ay;
    xlo_ = xlo;
    xhi_ = xhi;
    ylo_ = ylo;
    yhi_ = yhi;
    stepX_ = stepY_ = 1;
    chart->addAxis(ax, Qt::AlignBottom);
    chart->addAxis(ay, Qt::AlignLeft);
    auto add = [&](QXYSeries* s, bool inLegend) {
        chart->addSeries(s);
        s->attachAxis(ax);
        s->attachAxis(ay);
        if (!inLegend)
            for (QLegendMarker* m : chart->legend()->markers(s))
                m->setVisible(false);
    };

    // Roofs and their labels in the palette's text colour; the memory roof's purple lightened on dark themes.
    const ViewColors vc = viewColors(palette());
    const QColor ink = vc.dark ? vc.text.darker(115) : kRoof;
    const QColor memoryInk = vc.dark ? kMemoryRoof.lighter(190) : kMemoryRoof;
    const QColor prefillInk = vc.dark ? kPrefill.lighter(125) : kPrefill;
    const QColor decodeInk = vc.dark ? kDecode.lighter(150) : kDecode;
    const QColor mixedInk = vc.dark ? kMixed.lighter(140) : kMixed;
    const QColor trainingInk = vc.dark ? kTraining.lighter(140) : kTraining;
    const QColor ncuInk = vc.dark ? kNcu.lighter(130) : kNcu;
    QFont labelFont = view_->font();
    labelFont.setPointSizeF(std::max(7.0, labelFont.pointSizeF() - 1));

    // Roofs. Compute roofs with equal peaks (fp16 and bf16 on most GPUs) are one line named after both.
    std::map<double, std::vector<const RooflineRoof*>, std::greater<>> groups;
    for (const RooflineRoof& r : d.roofs)
        if (r.precision)
            groups[r.value].push_back(&r);
    if (!std::isnan(lbw)) {
        double x0 = std::max(double(xlo), ylo - lbw);
        double x1 = std::min({double(xhi), yhi - lbw, std::isnan(topRidge) ? double(xhi) : topRidge});
        if (x1 > x0) {
            auto* mem = new QLineSeries;
            mem->setName(tr("Memory roof"));
            QPen pen(memoryInk);
            pen.setWidthF(2);
            mem->setPen(pen);
            mem->append(x0, x0 + lbw);
            mem->append(x1, x1 + lbw);
            add(mem, false);
            auto* item = new QGraphicsSimpleTextItem(tr("DRAM %1").arg(RooflineModel::formatBytesPerSecond(d.bandwidth)), chart);
            item->setFont(labelFont);
            item->setBrush(memoryInk);
            roofLabels_.push_back({item, QPointF(x0, x0 + lbw), true, QPointF(x0, x0 + lbw), QPointF(x1, x1 + lbw)});
        }
    }
    auto* ridges = scatter(tr("Ridge points"), QScatterSeries::MarkerShapeCircle, 7, ink, false);
    for (const auto& [peak, group] : groups) {
        const double ly = std::log10(peak);
        const double ridge = group.front()->ridge;
        const double x0 = ridge > 0 ? std::max(double(xlo), std::log10(ridge)) : double(xlo);
        auto* roof = new QLineSeries;
        const bool gemm = std::any_of(group.begin(), group.end(), [](const RooflineRoof* r) { return r->gemm; });
        roof->setName(precisionGroupName(group));
        QPen pen(ink);
        pen.setWidthF(gemm ? 2.2 : 1.3);
        if (!gemm)
            pen.setStyle(Qt::DashLine);
        roof->setPen(pen);
        roof->append(x0, ly);
        roof->append(xhi, ly);
        add(roof, false);
        if (ridge > 0) {
            ridges->append(std::log10(ridge), ly);
            ridges_.push_back({QPointF(std::log10(ridge), ly),
                               tr("<b>Ridge point, %1</b><br>%2 at %3<br>Below it memory-bound, above it compute-bound.")
                                   .arg(precisionGroupName(group), RooflineModel::formatFlopsPerSecond(peak),
                                        RooflineModel::formatIntensity(ridge))});
        }
        const QString text = tr("%1 %2").arg(precisionGroupName(group), RooflineModel::formatFlopsPerSecond(peak));
        auto* item = new QGraphicsSimpleTextItem(text, chart);
        QFont f = labelFont;
        f.setBold(gemm);
        item->setFont(f);
        item->setBrush(ink);
        roofLabels_.push_back({item, QPointF(xhi, ly), false, QPointF(x0, ly), {}, gemm});
    }

    // Points: measured (largest markers first, so small ones stay on top), theory, ncu.
    double maxMeasured = 0;
    for (const RooflinePoint& p : d.points)
        if (p.kind == RooflinePointKind::Measured)
            maxMeasured = std::max(maxMeasured, p.total_ns);
    // Per phase: prefill, decode, mixed (chunked-prefill steps, prefill chunks and decode tokens in one pass), a
    // training iteration.
    const QString measuredNames[4] = {tr("Measured prefill (size: time)"), tr("Measured decode (size: time)"),
                                      tr("Measured mixed steps (size: time)"),
                                      tr("Measured training iteration (size: time)")};
    const QColor phaseInk[4] = {prefillInk, decodeInk, mixedInk, trainingInk};
    QScatterSeries* measured[4][3];   // [phase][bucket]
    for (int ph = 0; ph < 4; ++ph)
        for (int b = 0; b < 3; ++b)
            measured[ph][b] = scatter(measuredNames[ph], QScatterSeries::MarkerShapeCircle, kBucketSize[b],
                                      phaseInk[ph], false);
    QScatterSeries* theory[4] = {
        scatter(tr("Theory, prefill"), QScatterSeries::MarkerShapeTriangle, kTheorySize, prefillInk, true),
        scatter(tr("Theory, decode"), QScatterSeries::MarkerShapeRotatedRectangle, kTheorySize, decodeInk, true),
        scatter(tr("Theory, mixed steps"), QScatterSeries::MarkerShapeTriangle, kTheorySize, mixedInk, true),
        scatter(tr("Theory, training iteration"), QScatterSeries::MarkerShapeTriangle, kTheorySize, trainingInk,
                true)};
    auto* ncu = scatter(d.ncu_aggregated ? tr("ncu, per kernel name") : tr("ncu, per launch"),
                        QScatterSeries::MarkerShapeStar, kNcuSize, ncuInk, false);
    // Measured per-shape points: one series per family and size bucket (a series has one marker size).
    // Short names: a narrow dock elides the legend; the title says the points are measured from shapes.
    const QString shapeNames[4] = {tr("GEMM"), tr("Attention"), tr("Norm"), tr("Other ops")};
    const QColor shapeInk[4] = {vc.dark ? kShapeGemm.lighter(150) : kShapeGemm,
                                vc.dark ? kShapeAttention.lighter(150) : kShapeAttention,
                                vc.dark ? kShapeNorm.lighter(140) : kShapeNorm,
                                vc.dark ? kShapeOther.lighter(170) : kShapeOther};
    auto familyIndex = [](const std::string& family) {
        const std::string f = shape_series_family(family);
        return f == "gemm" ? 0 : f == "attention" ? 1 : f == "norm" ? 2 : 3;
    };
    double maxShape = 0;
    for (const RooflinePoint& p : d.points)
        if (p.kind == RooflinePointKind::Shape)
            maxShape = std::max(maxShape, p.total_ns);
    QScatterSeries* shapeSeries[4][3];
    for (int f = 0; f < 4; ++f)
        for (int b = 0; b < 3; ++b)
            shapeSeries[f][b] = scatter(shapeNames[f], QScatterSeries::MarkerShapeRectangle, kShapeSize[b], shapeInk[f],
                                        false);
    std::vector<QScatterSeries*> seriesOf(d.points.size(), nullptr);   // per row: the series drawing it
    for (size_t i = 0; i < d.points.size(); ++i) {
        const RooflinePoint& p = d.points[i];
        const int ph = p.phase == "prefill" ? 0 : p.phase == "mixed" ? 2 : p.phase == "training" ? 3 : 1;
        switch (p.kind) {
        case RooflinePointKind::Measured: {
            const double share = maxMeasured > 0 ? p.total_ns / maxMeasured : 0;
            const int b = share >= 1.0 / 3 ? 2 : share >= 1.0 / 30 ? 1 : 0;
            seriesOf[i] = measured[ph][b];
            markerRadius_[i] = kBucketSize[b] / 2;
            break;
        }
        case RooflinePointKind::Theory:
            seriesOf[i] = theory[ph];
            markerRadius_[i] = kTheorySize / 2;
            break;
        case RooflinePointKind::Ncu:
            seriesOf[i] = ncu;
            markerRadius_[i] = kNcuSize / 2;
            break;
        case RooflinePointKind::Shape: {
            const double share = maxShape > 0 ? p.total_ns / maxShape : 0;
            const int b = share >= 1.0 / 3 ? 2 : share >= 1.0 / 30 ? 1 : 0;
            seriesOf[i] = shapeSeries[familyIndex(p.op_class)][b];
            markerRadius_[i] = kShapeSize[b] / 2;
            break;
        }
        }
        seriesOf[i]->append(logPoints_[i]);
        markerShape_[i] = seriesOf[i]->markerShape();
    }
    auto addPoints = [&](QScatterSeries* s, bool inLegend) {
        if (s->count() == 0) {
            delete s;
            return false;
        }
        add(s, inLegend);
        return true;
    };
    for (int ph = 0; ph < 4; ++ph) {
        // Largest markers first (drawn under the smaller ones); the legend shows the smallest non-empty bucket.
        int legendBucket = -1;
        for (int b = 0; b < 3 && legendBucket < 0; ++b)
            if (measured[ph][b]->count() > 0)
                legendBucket = b;
        for (int b = 2; b >= 0; --b)
            addPoints(measured[ph][b], b == legendBucket);
    }
    for (int f = 0; f < 4; ++f) {
        int legendBucket = -1;
        for (int b = 0; b < 3 && legendBucket < 0; ++b)
            if (shapeSeries[f][b]->count() > 0)
                legendBucket = b;
        for (int b = 2; b >= 0; --b)
            addPoints(shapeSeries[f][b], b == legendBucket);
    }
    for (QScatterSeries* t : theory)
        addPoints(t, true);
    addPoints(ncu, true);
    addPoints(ridges, true);
    highlightSeries_ = new QScatterSeries;
    highlightSeries_->setMarkerShape(QScatterSeries::MarkerShapeCircle);
    highlightSeries_->setColor(Qt::transparent);
    highlightSeries_->setBorderColor(vc.focus);
    QPen hp(vc.focus);
    hp.setWidthF(2.5);
    highlightSeries_->setPen(hp);
    highlightSeries_->setBrush(Qt::NoBrush);
    add(highlightSeries_, false);
    // The order the markers are painted in (pointAt): series in the order they were added (later on top), points
    // of a series in row order.
    {
        const QList<QAbstractSeries*> painted = chart->series();
        for (size_t i = 0; i < d.points.size(); ++i)
            drawOrder_[i] = int64_t(painted.indexOf(seriesOf[i])) * int64_t(d.points.size() + 1) + int64_t(i);
    }

    // Point labels for the points with the most time (measured, shape and ncu points before theory ones), placed
    // with leader lines where they do not fit beside their marker (placeLabels).
    {
        std::vector<int> order(d.points.size());
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&d](int a, int b) {
            const RooflinePoint& pa = d.points[size_t(a)];
            const RooflinePoint& pb = d.points[size_t(b)];
            const bool ta = pa.kind == RooflinePointKind::Theory, tb = pb.kind == RooflinePointKind::Theory;
            if (ta != tb)
                return tb;
            return pa.total_ns > pb.total_ns;
        });
        QFont pointFont = labelFont;
        pointFont.setPointSizeF(std::max(6.5, labelFont.pointSizeF() - 0.5));
        QPen leaderPen(vc.mutedText);
        leaderPen.setWidthF(0.8);
        for (size_t n = 0; n < order.size() && n < size_t(kMaxPointLabels); ++n) {
            auto* text = new QGraphicsSimpleTextItem(pointLabelText(order[n]), chart);
            text->setFont(pointFont);
            text->setBrush(vc.text);
            text->setZValue(12);
            text->setVisible(false);
            auto* leader = new QGraphicsLineItem(chart);
            leader->setPen(leaderPen);
            leader->setZValue(11);
            leader->setVisible(false);
            pointLabels_.push_back({order[n], text, leader});
        }
    }
    std::stable_partition(roofLabels_.begin(), roofLabels_.end(),
                          [](const RoofLabel& l) { return l.diagonal || l.gemm; });
    applyChartColors(chart, palette());
    connect(chart, &QChart::plotAreaChanged, this, &RooflineView::placeLabels);
    QChart* old = view_->chart();
    view_->setChart(chart);
    delete old;
    placeLabels();
    updateMessage();
    if (selection_)
        followKernelName(selection_->kernelName());
}

void RooflineView::updateAxisLabels()
{
    QChart* c = chart();
    if (!c || !axisX_ || !axisY_)
        return;
    const QRectF plot = c->plotArea();
    if (plot.width() < 10 || plot.height() < 10)
        return;
    // One label per decade while they fit (~22 px per row of text, ~48 px per label across), else every 2nd or
    // 3rd decade: QCategoryAxis elides labels that do not fit ("…") instead of skipping them.
    auto stepFor = [](double px, int decades, double need) {
        const double per = px / std::max(1, decades);
        return per >= need ? 1 : per * 2 >= need ? 2 : 3;
    };
    const int sx = stepFor(plot.width(), xhi_ - xlo_, 48), sy = stepFor(plot.height(), yhi_ - ylo_, 22);
    auto relabel = [](QCategoryAxis* a, int lo, int hi, int step, bool intensity) {
        for (const QString& l : a->categoriesLabels())
            a->remove(l);
        a->setStartValue(lo);
        for (int e = lo; e <= hi; ++e)
            if (((e % step) + step) % step == 0)
                a->append(axisLabel(e, intensity), e);
        a->setRange(lo, hi);
    };
    if (sx != stepX_) {
        stepX_ = sx;
        relabel(axisX_, xlo_, xhi_, sx, true);
    }
    if (sy != stepY_) {
        stepY_ = sy;
        relabel(axisY_, ylo_, yhi_, sy, false);
    }
    // A short pane cannot hold the long vertical title: the unit alone.
    const QString yTitle = plot.height() < 160 ? tr("FLOP/s") : tr("Performance (FLOP/s)");
    if (axisY_->titleText() != yTitle)
        axisY_->setTitleText(yTitle);
}

void RooflineView::placeLabels()
{
    QChart* c = chart();
    if (!c || !highlightSeries_)
        return;
    updateAxisLabels();
    const QRectF plot = c->plotArea();
    std::vector<QPointF> px;   // every marker, in chart pixels
    px.reserve(logPoints_.size());
    for (const QPointF& p : logPoints_)
        px.push_back(c->mapToPosition(p, highlightSeries_));
    std::vector<QRectF> placed;
    std::vector<double> roofYs;   // the flat (compute) roofs, in chart pixels
    for (const RoofLabel& l : roofLabels_)
        if (!l.diagonal)
            roofYs.push_back(c->mapToPosition(l.at, highlightSeries_).y());
    auto blocked = [&](const QRectF& r, bool markersToo, bool roofsToo = true) {
        if (r.left() < plot.left() || r.top() < plot.top() - 2 || r.bottom() > plot.bottom())
            return true;
        for (const QRectF& p : placed)
            if (r.intersects(p))
                return true;
        if (markersToo)
            for (size_t i = 0; i < px.size(); ++i)   // the whole marker, not only its centre
                if (report::rect_hits_circle({r.left(), r.top(), r.right(), r.bottom()}, px[i].x(), px[i].y(),
                                             markerRadius_[i] + 3))
                    return true;
        // Another compute roof through the text would strike it out (FP8 just above BF16 on a short chart).
        if (roofsToo)
            for (double y : roofYs)
                if (y > r.top() + 1 && y < r.bottom() - 1)
                    return true;
        return false;
    };
    // Compute roofs: right-aligned above the line, else below it, else further left along the flat part of the
    // roof, one step at a time. Pass 1 keeps every label clear of markers, of other labels and of other roofs'
    // lines; a label that found no place then (a short dock squeezes FP8, BF16 and TF32 into a few pixels) tries
    // again in pass 2 with roof lines allowed through it, and the GEMM precision's roof, always named, finally past
    // its ridge. Labels never overlap each other or a marker; one that finds no place at all is hidden (the ridge
    // point's tooltip still names the roof).
    auto tryPlace = [&](RoofLabel& l, bool markersToo, bool roofsToo, bool slide = false, bool pastRidge = false) {
        const QRectF br = l.item->boundingRect();
        const QPointF at = c->mapToPosition(l.at, highlightSeries_);
        QRectF above(at.x() - br.width() - 6, at.y() - br.height() - 1, br.width(), br.height());
        QRectF below(at.x() - br.width() - 6, at.y() + 2, br.width(), br.height());
        const double roofLeft =
            pastRidge ? plot.left() : std::max(plot.left(), c->mapToPosition(l.from, highlightSeries_).x());
        const double step = std::max(12.0, br.width() / 4);
        for (double x = above.left();; x -= step) {   // the right end always, then leftwards while on the roof
            above.moveLeft(x);
            below.moveLeft(x);
            const QRectF* r = !blocked(above, markersToo, roofsToo) ? &above
                              : !blocked(below, markersToo, roofsToo) ? &below : nullptr;
            // Last resort: the free slot between its neighbours' labels nearest the line, even across the line.
            QRectF slid = above;
            for (double dy = 1; slide && !r && dy <= br.height() + 2; dy += 1)
                for (double sign : {1.0, -1.0}) {
                    if (r)
                        break;
                    slid.moveTop(above.top() + sign * dy);
                    if (slid.top() >= above.top() - br.height() && slid.top() <= below.top() + br.height() &&
                        !blocked(slid, markersToo, roofsToo))
                        r = &slid;
                }
            if (r) {
                l.item->setPos(r->topLeft());
                l.item->setVisible(true);
                placed.push_back(*r);
                return true;
            }
            if (x - step < roofLeft - 0.5)
                return false;
        }
    };
    std::vector<RoofLabel*> unplaced;
    for (RoofLabel& l : roofLabels_) {
        if (l.diagonal) {
            const QRectF br = l.item->boundingRect();
            // Along the memory roof, just above it, where the fewest markers sit under the text.
            const QPointF a = c->mapToPosition(l.from, highlightSeries_), b = c->mapToPosition(l.to, highlightSeries_);
            const double len = std::hypot(b.x() - a.x(), b.y() - a.y());
            if (len < br.width() + 8) {
                l.item->setVisible(false);
                continue;
            }
            const QPointF dir((b.x() - a.x()) / len, (b.y() - a.y()) / len);
            const QPointF up(dir.y(), -dir.x());   // perpendicular, towards the top of the chart
            double bestT = 0.1;
            int fewest = INT_MAX;
            for (double t = 0.04; t <= 1.0; t += 0.04) {
                const QPointF start = a + (b - a) * t;
                if ((b - start).manhattanLength() < br.width())
                    break;
                int n = 0;
                for (const QPointF& p : px) {
                    const QPointF d = p - start;
                    const double along = d.x() * dir.x() + d.y() * dir.y();
                    const double across = d.x() * up.x() + d.y() * up.y();
                    n += along > -8 && along < br.width() + 8 && across > -8 && across < br.height() + 10;
                }
                if (n < fewest) {
                    fewest = n;
                    bestT = t;
                }
            }
            const QPointF start = a + (b - a) * bestT;
            l.item->setRotation(std::atan2(dir.y(), dir.x()) * 180.0 / std::numbers::pi);
            l.item->setPos(start + up * (br.height() + 3));
            l.item->setVisible(plot.contains(start));
            continue;
        }
        if (!tryPlace(l, true, true))
            unplaced.push_back(&l);
    }
    for (RoofLabel* l : unplaced) {
        // Never over a marker: the GEMM roof slides between its neighbours' labels, and, on a chart where its flat
        // part is shorter than its name or crowded with markers (a 400×300 dock), goes on leftwards at its height
        // past the ridge, so the roof the findings measure against is always named without hiding a point. Other
        // roofs that find no place are hidden (the ridge point's tooltip still names them).
        const bool ok = tryPlace(*l, true, false) ||
                        (l->gemm && (tryPlace(*l, true, false, true) || tryPlace(*l, true, false, true, true)));
        l->item->setVisible(ok);
    }

    // Point labels (analysis/report/label_layout.h): beside their marker, else farther out with a leader line;
    // never over another label, a marker, a roof label or (first choice) a roof line; hidden when nothing is free.
    report::LabelLayoutOptions lo;
    lo.bounds = {plot.left() + 1, plot.top() + 1, plot.right() - 1, plot.bottom() - 1};
    for (size_t i = 0; i < px.size(); ++i)
        lo.markers.push_back({px[i].x(), px[i].y(), markerRadius_[i] + 1});
    for (const RoofLabel& l : roofLabels_) {
        if (!l.item->isVisible())
            continue;
        if (!l.diagonal) {
            const QRectF r = l.item->mapRectToParent(l.item->boundingRect());
            lo.obstacles.push_back({r.left(), r.top(), r.right(), r.bottom()});
            const QPointF a = c->mapToPosition(l.from, highlightSeries_), b = c->mapToPosition(l.at, highlightSeries_);
            lo.lines.push_back({a.x(), a.y(), b.x(), b.y()});
        } else {
            // The rotated text as small boxes along its baseline, and the roof itself.
            const QRectF br = l.item->boundingRect();
            for (double x = 0; x <= br.width(); x += 6) {
                const QPointF q = l.item->mapToParent(QPointF(x, br.height() / 2));
                lo.obstacles.push_back({q.x() - 5, q.y() - 7, q.x() + 5, q.y() + 7});
            }
            const QPointF a = c->mapToPosition(l.from, highlightSeries_), b = c->mapToPosition(l.to, highlightSeries_);
            lo.lines.push_back({a.x(), a.y(), b.x(), b.y()});
        }
    }
    std::vector<report::LabelRequest> req;
    for (const PointLabel& pl : pointLabels_) {
        const QRectF br = pl.text->boundingRect();
        const QPointF at = px[size_t(pl.row)];
        req.push_back({at.x(), at.y(), markerRadius_[size_t(pl.row)] + 1, br.width(), br.height()});
    }
    const std::vector<report::LabelPlacement> where = report::place_labels(req, lo);
    for (size_t i = 0; i < pointLabels_.size(); ++i) {
        const PointLabel& pl = pointLabels_[i];
        pl.text->setVisible(where[i].placed);
        pl.leader->setVisible(where[i].placed && where[i].leader);
        if (!where[i].placed)
            continue;
        pl.text->setPos(where[i].box.x0, where[i].box.y0);
        if (where[i].leader)
            pl.leader->setLine(where[i].line.x0, where[i].line.y0, where[i].line.x1, where[i].line.y1);
    }
}

std::vector<QRectF> RooflineView::roofLabelRects() const
{
    std::vector<QRectF> out;
    for (const RoofLabel& l : roofLabels_)
        if (l.item->isVisible() && !l.diagonal)
            out.push_back(l.item->mapRectToParent(l.item->boundingRect()));
    return out;
}

std::vector<int> RooflineView::labelledRows() const
{
    std::vector<int> rows;
    for (const PointLabel& pl : pointLabels_)
        rows.push_back(pl.row);
    return rows;
}

QRectF RooflineView::labelRect(int row) const
{
    for (const PointLabel& pl : pointLabels_)
        if (pl.row == row && pl.text->isVisible())
            return pl.text->mapRectToParent(pl.text->boundingRect());
    return {};
}

QString RooflineView::pointLabelText(int row) const
{
    const RooflinePoint* p = model_->pointAt(row);
    if (!p)
        return {};
    QString op = QString::fromStdString(p->label);
    switch (p->kind) {
    case RooflinePointKind::Shape: {
        if (op.startsWith(QLatin1String("aten::")))
            op = op.mid(6);
        return elide(tr("%1 %2").arg(op, QString::fromStdString(p->shape)), 34);
    }
    case RooflinePointKind::Ncu:
        return elide(QString::fromStdString(kernel_base_name(p->label)), 28);
    case RooflinePointKind::Measured:
    case RooflinePointKind::Theory: {
        const QString phase = phaseWords(p->phase);
        return elide(phase.isEmpty() ? op : tr("%1 (%2)").arg(op, phase), 30);
    }
    }
    return op;
}

QPointF RooflineView::valueToChart(double intensity, double flopsPerSecond) const
{
    if (!chart() || !highlightSeries_ || intensity <= 0 || flopsPerSecond <= 0)
        return QPointF(-1, -1);
    return chart()->mapToPosition(QPointF(std::log10(intensity), std::log10(flopsPerSecond)), highlightSeries_);
}

QPoint RooflineView::viewportPosition(int row) const
{
    if (row < 0 || size_t(row) >= logPoints_.size() || !highlightSeries_)
        return QPoint(-1, -1);
    const QPointF c = chart()->mapToPosition(logPoints_[size_t(row)], highlightSeries_);
    return view_->mapFromScene(chart()->mapToScene(c));
}

std::vector<RooflineView::Hit> RooflineView::hitsAt(const QPoint& viewportPos, double radiusPx) const
{
    std::vector<Hit> hits;
    if (!hasRoofline() || !highlightSeries_)
        return hits;
    const QPointF c = chart()->mapFromScene(view_->mapToScene(viewportPos));
    for (size_t i = 0; i < logPoints_.size(); ++i) {
        if (markerRadius_[i] <= 0)
            continue;
        const QPointF p = chart()->mapToPosition(logPoints_[i], highlightSeries_);
        const double dist = std::hypot(p.x() - c.x(), p.y() - c.y());
        if (dist - markerRadius_[i] <= radiusPx)
            hits.push_back({int(i), p, c - p, dist, false});
    }
    // A marker wholly inside a marker painted over it cannot be seen, so it cannot be pointed at (the chooser still
    // lists it).
    for (Hit& h : hits) {
        const double r = markerRadius_[size_t(h.row)];
        for (size_t j = 0; j < logPoints_.size() && !h.hidden; ++j) {
            if (int(j) == h.row || drawOrder_[j] < drawOrder_[size_t(h.row)] || markerRadius_[j] < r)
                continue;
            const QPointF q = chart()->mapToPosition(logPoints_[j], highlightSeries_);
            h.hidden = std::hypot(q.x() - h.at.x(), q.y() - h.at.y()) + r <= markerRadius_[j] + 0.5;
        }
    }
    return hits;
}

int RooflineView::pointAt(const QPoint& viewportPos, double radiusPx) const
{
    // On markers: the one painted on top at the cursor, by the marker's own shape (a star's arms are thin: a click
    // beside its centre goes to a marker under it). Beside markers: the one whose edge is nearest, ties to the one
    // painted on top. A marker wholly covered by another is never picked.
    const std::vector<Hit> hits = hitsAt(viewportPos, radiusPx);
    int top = -1;
    for (const Hit& h : hits)
        if (markerContains(size_t(h.row), h.offset) && (top < 0 || drawOrder_[size_t(h.row)] > drawOrder_[size_t(top)]))
            top = h.row;
    if (top >= 0)
        return top;
    int best = -1;
    double bestGap = HUGE_VAL;
    for (const Hit& h : hits) {
        if (h.hidden)
            continue;
        const double gap = h.dist - markerRadius_[size_t(h.row)];
        if (best < 0 || gap < bestGap - 0.25 ||
            (gap <= bestGap + 0.25 && drawOrder_[size_t(h.row)] > drawOrder_[size_t(best)])) {
            best = h.row;
            bestGap = std::min(bestGap, gap);
        }
    }
    return best;
}

bool RooflineView::markerContains(size_t row, QPointF d) const
{
    // The shapes as Qt Charts paints them in a square of the marker size (y grows downwards), with half a pixel of
    // slack; a star counts by its solid core.
    const double r = markerRadius_[row] + 0.5;
    const double ax = std::fabs(d.x()), ay = std::fabs(d.y());
    switch (markerShape_[row]) {
    case QScatterSeries::MarkerShapeRectangle:
        return ax <= r && ay <= r;
    case QScatterSeries::MarkerShapeRotatedRectangle:
        return ax + ay <= r;
    case QScatterSeries::MarkerShapeTriangle:
        return d.y() <= r && d.y() >= -r && ax <= (d.y() + r) / 2;
    case QScatterSeries::MarkerShapeStar:
        return std::hypot(d.x(), d.y()) <= markerRadius_[row] * 0.5;
    default:
        return std::hypot(d.x(), d.y()) <= r;
    }
}

std::vector<int> RooflineView::pointsAt(const QPoint& viewportPos, double radiusPx) const
{
    std::vector<Hit> hits = hitsAt(viewportPos, radiusPx);
    // Painted on top first.
    std::sort(hits.begin(), hits.end(),
              [this](const Hit& a, const Hit& b) { return drawOrder_[size_t(a.row)] > drawOrder_[size_t(b.row)]; });
    std::vector<int> rows;
    for (const Hit& h : hits)
        rows.push_back(h.row);
    return rows;
}

QString RooflineView::ridgeTextAt(const QPoint& viewportPos) const
{
    if (!hasRoofline() || !highlightSeries_)
        return {};
    const QPointF c = chart()->mapFromScene(view_->mapToScene(viewportPos));
    for (const Ridge& r : ridges_) {
        const QPointF p = chart()->mapToPosition(r.at, highlightSeries_);
        if (std::hypot(p.x() - c.x(), p.y() - c.y()) <= 7)
            return r.text;
    }
    return {};
}

QString RooflineView::toolTipText(int row) const
{
    const RooflinePoint* p = model_->pointAt(row);
    if (!p)
        return {};
    if (p->kind == RooflinePointKind::Shape)
        return shapeToolTipText(*p);
    const RooflineData& d = model_->rooflineData();
    QString phase = phaseWords(p->phase);
    QString kind = model_->kindLabel(p->kind);
    if (!phase.isEmpty())
        kind = tr("%1, %2").arg(kind, phase);
    if (!p->op_class.empty() && p->kind == RooflinePointKind::Theory)
        kind = tr("%1 (class %2)").arg(kind, QString::fromStdString(p->op_class));
    QStringList lines;
    lines << QStringLiteral("<b>%1</b>").arg(elide(QString::fromStdString(p->label), 100).toHtmlEscaped());
    lines << kind.toHtmlEscaped();
    if (p->kind == RooflinePointKind::Ncu)
        lines << tr("FLOPs: %1, DRAM bytes: %2")
                     .arg(RooflineModel::formatSi(p->flops), formatBytes(uint64_t(std::llround(p->bytes))));
    else
        lines << tr("FLOPs per pass: %1, bytes per pass: %2")
                     .arg(RooflineModel::formatSi(p->flops), formatBytes(uint64_t(std::llround(p->bytes))));
    lines << tr("Intensity: %1").arg(RooflineModel::formatIntensity(p->intensity));
    const auto frac = d.fraction_of_roof(*p);
    lines << (frac ? tr("Performance: %1 (%2 of the roof)")
                         .arg(RooflineModel::formatFlopsPerSecond(p->flops_per_s), formatPercent(*frac))
                   : tr("Performance: %1").arg(RooflineModel::formatFlopsPerSecond(p->flops_per_s)));
    lines << tr("E_roof: %1").arg(p->e_roof ? QLocale().toString(*p->e_roof, 'f', 3) : tr("unknown"));
    if (!p->shape_source.empty()) {
        // Where the theory's workload came from (issue 34 §3): the trace, the step annotations, the user, or defaults.
        const QString from = p->shape_source == "trace"        ? tr("the trace's recorded shapes")
                             : p->shape_source == "annotation" ? tr("the steps' annotations")
                             : p->shape_source == "option"     ? tr("your --batch/--prompt/--context or Preferences")
                                                               : tr("defaults: nothing in the trace says");
        const QString shape = p->phase == "mixed"
                                  ? tr("%1 requests, %2 tokens in one pass").arg(p->batch).arg(p->tokens)
                              : p->phase == "decode"
                                  ? tr("batch %1, KV length %2").arg(p->batch).arg(p->kv_len)
                                  : tr("batch %1, %2 tokens per sequence").arg(p->batch).arg(p->query_len);
        lines << tr("Workload: %1 (from %2)").arg(shape, from).toHtmlEscaped();
    }
    const auto dur = [](double ns) { return formatDuration(int64_t(std::llround(ns))); };
    switch (p->kind) {
    case RooflinePointKind::Theory:
        lines << tr("T_theory per pass: %1").arg(p->time_ns ? dur(*p->time_ns) : tr("unknown"));
        break;
    case RooflinePointKind::Measured:
        lines << tr("Time per pass: %1").arg(p->time_ns ? dur(*p->time_ns) : tr("unknown"));
        lines << tr("Total time: %1").arg(dur(p->total_ns));
        break;
    case RooflinePointKind::Ncu:
        lines << tr("Total time: %1 (%n launch(es))", nullptr, int(p->launches)).arg(dur(p->total_ns));
        break;
    case RooflinePointKind::Shape:
        break;
    }
    if (p->kind != RooflinePointKind::Theory && kernelTimeNs_ > 0)
        lines << tr("Share of the trace's kernel time: %1").arg(formatPercent(p->total_ns / kernelTimeNs_));
    return lines.join(QStringLiteral("<br>"));
}

QString RooflineView::shapeToolTipText(const RooflinePoint& p) const
{
    const QLocale l;
    const auto dur = [](double ns) { return formatDuration(int64_t(std::llround(ns))); };
    QStringList lines;
    lines << QStringLiteral("<b>%1</b> %2").arg(QString::fromStdString(p.label).toHtmlEscaped(),
                                               QString::fromStdString(p.shape).toHtmlEscaped());
    lines << tr("Measured from the trace's shapes, %1, family %2")
                 .arg(QString::fromStdString(p.dtype), QString::fromStdString(p.op_class))
                 .toHtmlEscaped();
    lines << tr("Input dims: %1").arg(elide(QString::fromStdString(p.input_dims), 100)).toHtmlEscaped();
    lines << tr("FLOPs per call: %1, bytes per call: %2")
                 .arg(RooflineModel::formatSi(p.flops), formatBytes(uint64_t(std::llround(p.bytes))));
    lines << tr("Intensity: %1").arg(RooflineModel::formatIntensity(p.intensity));
    lines << tr("Achieved: %1, %2")
                 .arg(RooflineModel::formatFlopsPerSecond(p.flops_per_s), RooflineModel::formatBytesPerSecond(p.bytes_per_s));
    if (p.pct_of_roof)
        lines << (p.bound == "compute" ? tr("%1 of the %2 compute roof (compute-bound)")
                                       : tr("%1 of the roof at this intensity (memory-bound)"))
                     .arg(formatPercent(*p.pct_of_roof / 100.0), QString::fromStdString(p.dtype).toUpper());
    else if (p.roof_inconsistent)
        lines << tr("Above the roof: wrong GPU row or dtype (see the trace warnings)");
    else
        lines << tr("% of roof unknown (no peak for this GPU or dtype)");
    lines << tr("Kernel time: %1 over %n call(s)", nullptr, int(p.calls)).arg(dur(p.total_ns));
    if (kernelTimeNs_ > 0)
        lines << tr("Share of the trace's kernel time: %1").arg(formatPercent(p.total_ns / kernelTimeNs_));
    lines << tr("%n kernel(s); click to select them", nullptr, int(p.kernels.size()));
    for (size_t i = 0; i < p.kernel_names.size() && i < 3; ++i)
        lines << QStringLiteral("· %1").arg(elide(QString::fromStdString(p.kernel_names[i]), 90).toHtmlEscaped());
    if (p.kernel_names.size() > 3)
        lines << tr("… and %n more kernel name(s)", nullptr, int(p.kernel_names.size() - 3));
    return lines.join(QStringLiteral("<br>"));
}

QString RooflineView::hoverTextAt(const QPoint& viewportPos) const
{
    const int row = pointAt(viewportPos);
    if (row < 0)
        return ridgeTextAt(viewportPos);
    QString text = toolTipText(row);
    if (const size_t n = pointsAt(viewportPos).size(); n > 1)
        text += QStringLiteral("<br><i>%1</i>")
                    .arg(tr("%n more point(s) here: right-click to choose", nullptr, int(n - 1)).toHtmlEscaped());
    return text;
}

QMenu* RooflineView::chooserMenu(const QPoint& viewportPos)
{
    const std::vector<int> rows = pointsAt(viewportPos);
    if (rows.size() < 2)
        return nullptr;
    auto* menu = new QMenu(this);
    menu->setToolTipsVisible(true);
    menu->addSection(tr("%n point(s) here", nullptr, int(rows.size())));
    for (int row : rows) {
        const RooflinePoint* p = model_->pointAt(row);
        if (!p)
            continue;
        QAction* a = menu->addAction(tr("%1 · %2").arg(pointLabelText(row), model_->kindLabel(p->kind)));
        a->setToolTip(QString::fromStdString(p->label));
        connect(a, &QAction::triggered, this, [this, row] { activate(row); });
    }
    return menu;
}

void RooflineView::showHover(int row)
{
    const QPoint at = viewportPosition(row);
    if (at.x() < 0)
        return;
    hoverText_ = toolTipText(row);
    QToolTip::showText(view_->viewport()->mapToGlobal(at + QPoint(8, 8)), hoverText_, view_->viewport());
}

void RooflineView::setHighlight(int row)
{
    highlighted_ = row;
    if (!highlightSeries_)
        return;
    highlightSeries_->clear();
    if (row >= 0 && size_t(row) < logPoints_.size()) {
        highlightSeries_->setMarkerSize(2 * markerRadius_[size_t(row)] + 10);
        highlightSeries_->append(logPoints_[size_t(row)]);
    }
}

void RooflineView::followKernelName(uint32_t nameId)
{
    const RooflineData& d = model_->rooflineData();
    if (const RooflinePoint* cur = model_->pointAt(highlighted_);
        cur && cur->kind == RooflinePointKind::Ncu && cur->kernel_name == nameId)
        return;
    int best = -1;
    if (nameId != UINT32_MAX)
        for (size_t i = 0; i < d.points.size(); ++i)
            if (d.points[i].kind == RooflinePointKind::Ncu && d.points[i].kernel_name == nameId &&
                (best < 0 || d.points[i].total_ns > d.points[size_t(best)].total_ns))
                best = int(i);
    const RooflinePoint* cur = model_->pointAt(highlighted_);
    if (best >= 0 || (cur && cur->kind == RooflinePointKind::Ncu))
        setHighlight(best);
}

void RooflineView::followKernel(int64_t k)
{
    const auto trace = document_ ? document_->trace() : nullptr;
    if (!trace || k < 0)
        return;
    const auto analysis = document_->analysis();
    const int row = roofline_row_for_kernel(model_->rooflineData(), *trace, analysis.get(), k);
    if (row >= 0)
        setHighlight(row);
}

void RooflineView::activate(int row)
{
    const RooflinePoint* p = model_->pointAt(row);
    if (!p)
        return;
    setHighlight(row);
    emit pointActivated(row);
    if (p->kind == RooflinePointKind::Ncu) {
        if (selection_ && p->kernel_name != UINT32_MAX)
            selection_->setKernelName(p->kernel_name);
        emit kernelActivated(p->kernel_name, QString::fromStdString(p->label));
    } else if (p->kind == RooflinePointKind::Shape) {
        // Exactly the kernels of this (op, shapes, dtype): a kernel name also runs for other shapes, so no name is
        // selected; the timeline outlines the set and shows its longest instance.
        if (selection_) {
            selection_->setKernelName(UINT32_MAX);
            selection_->setHighlightedKernels(p->kernels);
            const auto trace = document_ ? document_->trace() : nullptr;
            int64_t longest = -1;
            if (trace)
                for (int64_t k : p->kernels)
                    if (k >= 0 && size_t(k) < trace->kernels.size() &&
                        (longest < 0 || trace->kernels.end[size_t(k)] - trace->kernels.start[size_t(k)] >
                                            trace->kernels.end[size_t(longest)] - trace->kernels.start[size_t(longest)]))
                        longest = k;
            if (longest >= 0)
                selection_->setKernel(longest);
        }
        emit shapeActivated(row);
    } else {
        emit opClassActivated(QString::fromStdString(p->op_class), QString::fromStdString(p->phase));
    }
}

void RooflineView::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange && view_ && model_)
        rebuild();   // Qt Charts ignore the palette: recolour by building the chart again
}

bool RooflineView::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == view_->viewport()) {
        if (event->type() == QEvent::MouseMove) {
            auto* me = static_cast<QMouseEvent*>(event);
            hoverText_ = hoverTextAt(me->position().toPoint());
            if (!hoverText_.isEmpty())
                QToolTip::showText(me->globalPosition().toPoint(), hoverText_, view_->viewport());
            else
                QToolTip::hideText();
        } else if (event->type() == QEvent::ToolTip) {
            // Qt's tooltip wake-up (the mouse resting ~0.7 s) sends this to the viewport; QGraphicsView would pass it
            // to the chart's scene, which finds no item tooltip at a data point and hides ours. On a point or a
            // ridge the tooltip is ours and stays while the mouse rests there (as the timeline's); elsewhere the
            // scene shows the legend's tooltips.
            auto* he = static_cast<QHelpEvent*>(event);
            const QString text = hoverTextAt(he->pos());
            if (!text.isEmpty()) {
                hoverText_ = text;
                QToolTip::showText(he->globalPos(), hoverText_, view_->viewport());
                return true;
            }
        } else if (event->type() == QEvent::MouseButtonPress) {
            auto* me = static_cast<QMouseEvent*>(event);
            if (me->button() == Qt::LeftButton) {
                const int row = pointAt(me->position().toPoint());
                if (row >= 0)
                    activate(row);
            }
        } else if (event->type() == QEvent::ContextMenu) {
            // Markers on top of each other: a menu of the points under the cursor.
            auto* ce = static_cast<QContextMenuEvent*>(event);
            if (std::unique_ptr<QMenu> menu{chooserMenu(ce->pos())}) {
                QToolTip::hideText();
                menu->exec(ce->globalPos());
                return true;
            }
        } else if (event->type() == QEvent::Leave) {
            hoverText_.clear();
        }
    }
    return QWidget::eventFilter(watched, event);
}

} // namespace sl
