#pragma once
// What a person sees in a window, as text: every visible label, button, menu title, tab, dock title, table header,
// line-edit placeholder, rich-text pane and chart title/axis/legend, one entry per line as "ClassName\ttext".
// sightline --text-report writes it; the language test checks it for English under zh_CN.

#include <QImage>
#include <QStringList>

class QWidget;

namespace sl {

QStringList visibleTexts(QWidget* window);
// The window as it looks with its visible tooltips painted over it (a --screenshot of a hover).
QImage grabWithToolTips(QWidget* window);

} // namespace sl
