#pragma once
// Colours shared by the views (timeline, charts, legends).

#include <QColor>
#include <QString>

namespace sl {

// A stable, distinguishable colour for a name (operator class, kernel name), the same in every view.
QColor colorForKey(const QString& key);

} // namespace sl
