// sightline: the GUI workbench (placeholder window until the main window lands).
#include <QApplication>
#include <QLabel>

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QLabel label(QObject::tr("Sightline"));
    label.show();
    return app.exec();
}
