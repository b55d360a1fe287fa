#include "visible_text.h"

#include <QAbstractButton>
#include <QAbstractItemModel>
#include <QAbstractItemView>
#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QDockWidget>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QLegendMarker>
#include <QAbstractAxis>
#include <QLineEdit>
#include <QMainWindow>
#include <QMenuBar>
#include <QPainter>
#include <QTabBar>
#include <QTextBrowser>
#include <QTextDocument>

namespace sl {

namespace {

QString plain(const QString& text)
{
    if (!Qt::mightBeRichText(text))
        return text;
    QTextDocument d;
    d.setHtml(text);
    return d.toPlainText();
}

} // namespace

QStringList visibleTexts(QWidget* window)
{
    QStringList out;
    auto add = [&out](const QObject* o, const QString& text) {
        const QString t = plain(text).simplified();
        if (!t.isEmpty())
            out << QStringLiteral("%1\t%2").arg(QString::fromLatin1(o->metaObject()->className()), t);
    };
    if (auto* mw = qobject_cast<QMainWindow*>(window))
        for (QAction* a : mw->menuBar()->actions())
            add(mw->menuBar(), a->text().remove(QLatin1Char('&')));
    for (QWidget* w : window->findChildren<QWidget*>()) {
        if (!w->isVisible() || w->window() != window)
            continue;
        if (auto* l = qobject_cast<QLabel*>(w))
            add(l, l->text());
        else if (auto* b = qobject_cast<QAbstractButton*>(w))
            add(b, b->text().remove(QLatin1Char('&')));
        else if (auto* e = qobject_cast<QLineEdit*>(w))
            add(e, e->text().isEmpty() ? e->placeholderText() : e->text());
        else if (auto* c = qobject_cast<QComboBox*>(w))
            add(c, c->currentText());
        else if (auto* g = qobject_cast<QGroupBox*>(w))
            add(g, g->title());
        else if (auto* d = qobject_cast<QDockWidget*>(w))
            add(d, d->windowTitle());
        else if (auto* t = qobject_cast<QTabBar*>(w)) {
            for (int i = 0; i < t->count(); ++i)
                add(t, t->tabText(i).remove(QLatin1Char('&')));
        } else if (auto* tb = qobject_cast<QTextBrowser*>(w)) {
            add(tb, tb->toPlainText());
        } else if (auto* v = qobject_cast<QAbstractItemView*>(w)) {
            if (QAbstractItemModel* m = v->model())
                for (int c = 0; c < m->columnCount(); ++c)
                    add(v, m->headerData(c, Qt::Horizontal).toString());
        } else if (auto* cv = qobject_cast<QChartView*>(w)) {
            if (QChart* chart = cv->chart()) {
                add(cv, chart->title());
                for (QAbstractAxis* a : chart->axes())
                    add(cv, a->titleText());
                for (QLegendMarker* m : chart->legend()->markers())
                    if (m->isVisible())
                        add(cv, m->label());
            }
        }
    }
    return out;
}

QImage grabWithToolTips(QWidget* window)
{
    QImage img = window->grab().toImage();
    QPainter p(&img);
    for (QWidget* w : QApplication::topLevelWidgets())
        if (w->isVisible() && w->inherits("QTipLabel"))
            p.drawPixmap(window->mapFromGlobal(w->mapToGlobal(QPoint(0, 0))), w->grab());
    return img;
}

} // namespace sl
