#include "model/theme.h"

#include <QApplication>
#include <QGuiApplication>
#include <QStyle>
#include <QStyleFactory>
#include <cmath>

namespace sl {

namespace {

QString g_mode = QStringLiteral("system");
QString g_platformStyle;   // the style the application started with, restored by "system"

// Sets one colour in the active and inactive groups, and `disabled` in the disabled group.
void set(QPalette& p, QPalette::ColorRole role, const QColor& normal, const QColor& disabled)
{
    p.setColor(QPalette::Active, role, normal);
    p.setColor(QPalette::Inactive, role, normal);
    p.setColor(QPalette::Disabled, role, disabled);
}
void set(QPalette& p, QPalette::ColorRole role, const QColor& c) { set(p, role, c, c); }

} // namespace

QPalette lightPalette()
{
    QPalette p;
    const QColor text(0x1b, 0x1b, 0x1b), disabledText(0x8a, 0x8a, 0x8a);
    set(p, QPalette::Window, QColor(0xef, 0xef, 0xef));
    set(p, QPalette::WindowText, text, disabledText);
    set(p, QPalette::Base, QColor(0xff, 0xff, 0xff), QColor(0xf4, 0xf4, 0xf4));
    set(p, QPalette::AlternateBase, QColor(0xf3, 0xf5, 0xf8));
    set(p, QPalette::Text, text, disabledText);
    set(p, QPalette::PlaceholderText, QColor(0x6b, 0x6b, 0x6b), QColor(0xa0, 0xa0, 0xa0));
    set(p, QPalette::Button, QColor(0xe8, 0xe8, 0xe8));
    set(p, QPalette::ButtonText, text, disabledText);
    set(p, QPalette::BrightText, QColor(0xff, 0xff, 0xff));
    set(p, QPalette::Light, QColor(0xff, 0xff, 0xff));
    set(p, QPalette::Midlight, QColor(0xe0, 0xe0, 0xe0));
    set(p, QPalette::Mid, QColor(0xa8, 0xa8, 0xa8));
    set(p, QPalette::Dark, QColor(0x9a, 0x9a, 0x9a));
    set(p, QPalette::Shadow, QColor(0x60, 0x60, 0x60));
    set(p, QPalette::Highlight, QColor(0x2a, 0x6f, 0xc9), QColor(0xc8, 0xc8, 0xc8));
    set(p, QPalette::HighlightedText, QColor(0xff, 0xff, 0xff), QColor(0x60, 0x60, 0x60));
    set(p, QPalette::Link, QColor(0x0b, 0x5c, 0xb8), QColor(0x70, 0x8c, 0xb0));
    set(p, QPalette::LinkVisited, QColor(0x6a, 0x3d, 0xa8), QColor(0x90, 0x80, 0xa8));
    set(p, QPalette::ToolTipBase, QColor(0xff, 0xff, 0xe1));
    set(p, QPalette::ToolTipText, QColor(0x10, 0x10, 0x10));
    return p;
}

QPalette darkPalette()
{
    QPalette p;
    const QColor text(0xe4, 0xe6, 0xea), disabledText(0x7c, 0x7f, 0x85);
    set(p, QPalette::Window, QColor(0x2b, 0x2d, 0x31));
    set(p, QPalette::WindowText, text, disabledText);
    set(p, QPalette::Base, QColor(0x1e, 0x1f, 0x23), QColor(0x26, 0x27, 0x2b));
    set(p, QPalette::AlternateBase, QColor(0x27, 0x29, 0x2e));
    set(p, QPalette::Text, text, disabledText);
    set(p, QPalette::PlaceholderText, QColor(0x9a, 0x9d, 0xa3), QColor(0x6a, 0x6d, 0x72));
    set(p, QPalette::Button, QColor(0x36, 0x39, 0x3e));
    set(p, QPalette::ButtonText, text, disabledText);
    set(p, QPalette::BrightText, QColor(0xff, 0x8a, 0x80));
    set(p, QPalette::Light, QColor(0x4c, 0x50, 0x56));
    set(p, QPalette::Midlight, QColor(0x40, 0x43, 0x48));
    set(p, QPalette::Mid, QColor(0x5c, 0x60, 0x66));
    set(p, QPalette::Dark, QColor(0x18, 0x19, 0x1c));
    set(p, QPalette::Shadow, QColor(0x05, 0x05, 0x06));
    set(p, QPalette::Highlight, QColor(0x35, 0x74, 0xd4), QColor(0x3a, 0x3d, 0x42));
    set(p, QPalette::HighlightedText, QColor(0xff, 0xff, 0xff), QColor(0x9a, 0x9d, 0xa3));
    set(p, QPalette::Link, QColor(0x6c, 0xb4, 0xff), QColor(0x58, 0x74, 0x94));
    set(p, QPalette::LinkVisited, QColor(0xc0, 0x9c, 0xff), QColor(0x7a, 0x6c, 0x94));
    set(p, QPalette::ToolTipBase, QColor(0x3a, 0x3d, 0x43));
    set(p, QPalette::ToolTipText, text);
    return p;
}

void applyTheme(const QString& mode)
{
    const QString m = mode == QLatin1String("light") || mode == QLatin1String("dark") ? mode : QStringLiteral("system");
    auto* app = qobject_cast<QApplication*>(QCoreApplication::instance());
    if (app && g_platformStyle.isEmpty() && QApplication::style())
        g_platformStyle = QApplication::style()->name();
    if (m == QLatin1String("system")) {
        if (app && !g_platformStyle.isEmpty() && QApplication::style()->name() != g_platformStyle)
            QApplication::setStyle(g_platformStyle);
        // A palette with no roles set resolves to the platform theme's (or the style's standard) palette.
        QGuiApplication::setPalette(QPalette());
    } else {
        if (app && QApplication::style()->name().compare(QLatin1String("fusion"), Qt::CaseInsensitive) != 0)
            QApplication::setStyle(QStringLiteral("Fusion"));
        QGuiApplication::setPalette(m == QLatin1String("dark") ? darkPalette() : lightPalette());
    }
    g_mode = m;
}

QString currentTheme() { return g_mode; }

bool isDark() { return isDark(QGuiApplication::palette()); }

bool isDark(const QPalette& palette)
{
    return palette.color(QPalette::Active, QPalette::Window).lightnessF() < 0.5;
}

double relativeLuminance(const QColor& c)
{
    auto lin = [](double v) { return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
    const QColor rgb = c.toRgb();
    return 0.2126 * lin(rgb.redF()) + 0.7152 * lin(rgb.greenF()) + 0.0722 * lin(rgb.blueF());
}

double contrastRatio(const QColor& a, const QColor& b)
{
    const double la = relativeLuminance(a), lb = relativeLuminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

} // namespace sl
