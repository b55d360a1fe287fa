#include "widgets/palette.h"

#include <QHash>

namespace sl {

QColor colorForKey(const QString& key)
{
    // FNV-1a over the UTF-16 code units: the same colour in every run (qHash is seeded per process).
    uint32_t h = 2166136261u;
    for (const QChar ch : key) {
        h ^= ch.unicode();
        h *= 16777619u;
    }
    h ^= h >> 15;
    h *= 0x2c1b3c6du;
    h ^= h >> 12;
    const int hue = static_cast<int>(h % 360);
    const int sat = 140 + static_cast<int>((h >> 9) % 80);
    const int val = 170 + static_cast<int>((h >> 17) % 60);
    return QColor::fromHsv(hue, sat, val);
}

} // namespace sl
