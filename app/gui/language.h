#pragma once
// The interface language: Qt's own catalogue (qtbase: the standard buttons OK, Cancel, Restore Defaults of every
// dialog) and Sightline's, installed on the application. main() calls it before the window exists; the language
// test calls it the same way.

#include <QString>

namespace sl {

struct InstalledLanguage {
    bool qt = false;          // qtbase_<lang>.qm found in Qt's translations folder and installed
    bool sightline = false;   // sightline_<lang>.qm (or the English plurals) installed
};

// Installs the catalogues of `lang` ("en", "zh_CN") on the running application; Sightline's are read from
// `catalogueDir` (the embedded :/i18n by default). English installs only Sightline's plural forms. Also records
// `lang` as the running interface language (sl::interfaceLanguage()), which the Language menu ticks.
InstalledLanguage installLanguage(const QString& lang, const QString& catalogueDir = QStringLiteral(":/i18n"));

} // namespace sl
