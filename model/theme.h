#pragma once
// Light / dark / follow-the-system look (Settings › Appearance › Theme) for Qt 6.4, which has no
// QStyleHints::colorScheme (6.5): "system" keeps the platform's style and palette and tells dark from light by the
// palette's window lightness; "light" and "dark" switch to the Fusion style (the one style that paints every role
// of a custom palette) with a complete palette: all roles, the disabled group, links, tooltips, placeholders.
//
// Views read their colours from the widget palette (and widgets/palette.h derives the timeline's and charts'
// colours from it), so they follow a switch at run time through QEvent::PaletteChange.
//
// Layering note: the style switch needs QApplication (QtWidgets, already linked into this library through
// QtPrintSupport); under a QGuiApplication only the palette is set.

#include <QColor>
#include <QPalette>
#include <QString>

namespace sl {

// "system" | "light" | "dark"; anything else is treated as "system".
void applyTheme(const QString& mode);
// The mode applyTheme last applied ("system" before any call).
QString currentTheme();

// The complete palettes applyTheme("light") / applyTheme("dark") install.
QPalette lightPalette();
QPalette darkPalette();

// True when the palette is a dark one (window lighter than 50 % is light). Without an argument: the application's.
bool isDark();
bool isDark(const QPalette& palette);

// WCAG 2.x relative luminance (0 = black, 1 = white) and contrast ratio (1 … 21) of two opaque colours.
double relativeLuminance(const QColor& c);
double contrastRatio(const QColor& a, const QColor& b);

} // namespace sl
