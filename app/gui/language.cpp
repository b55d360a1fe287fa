#include "language.h"

#include <QCoreApplication>
#include <QLibraryInfo>
#include <QLocale>
#include <QTranslator>

#include "model/workbench_settings.h"

namespace sl {

InstalledLanguage installLanguage(const QString& lang, const QString& catalogueDir)
{
    InstalledLanguage done;
    auto* app = QCoreApplication::instance();
    if (lang != QLatin1String("en")) {
        auto* qt = new QTranslator(app);
        done.qt = qt->load(QLocale(lang), QStringLiteral("qtbase"), QStringLiteral("_"),
                           QLibraryInfo::path(QLibraryInfo::TranslationsPath)) &&
                  QCoreApplication::installTranslator(qt);
        if (!done.qt)
            delete qt;
    }
    // The English catalogue carries the plural forms; the others translate everything.
    auto* own = new QTranslator(app);
    done.sightline = (own->load(QStringLiteral("sightline_") + lang, catalogueDir) ||
                      own->load(QStringLiteral("sightline_en"), catalogueDir)) &&
                     QCoreApplication::installTranslator(own);
    if (!done.sightline)
        delete own;
    setInterfaceLanguage(lang);
    return done;
}

} // namespace sl
