#include "model/export_path.h"

#include <QFileInfo>
#include <QRegularExpression>

namespace sl {

namespace {
bool isReportSuffix(const QString& s)
{
    const QString l = s.toLower();
    return l == QLatin1String("pdf") || l == QLatin1String("md") || l == QLatin1String("html") ||
           l == QLatin1String("json");
}
} // namespace

QString filterSuffix(const QString& filter)
{
    static const QRegularExpression pattern(QStringLiteral(R"(\*\.([A-Za-z0-9]+))"));
    const QRegularExpressionMatch m = pattern.match(filter);
    return m.hasMatch() ? m.captured(1) : QString();
}

QString reportPathForFilter(const QString& typed, const QString& selectedFilter)
{
    if (typed.isEmpty() || isReportSuffix(QFileInfo(typed).suffix()))
        return typed;
    const QString suffix = filterSuffix(selectedFilter);
    if (suffix.isEmpty())
        return typed;
    return typed.endsWith(QLatin1Char('.')) ? typed + suffix : typed + QLatin1Char('.') + suffix;
}

} // namespace sl
