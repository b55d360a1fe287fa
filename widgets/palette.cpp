#include "widgets/palette.h"

#include <QHash>

namespace sl {

QColor colorForKey(const QString& key)
{
    const size_t h = qHash(key, 0x5157u);
    const int hue = static_cast<int>(h % 360);
    const int sat = 140 + static_cast<int>((h >> 9) % 80);
    const int val = 170 + static_cast<int>((h >> 17) % 60);
    return QColor::fromHsv(hue, sat, val);
}

} // namespace sl
