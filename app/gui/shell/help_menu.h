// The Help menu: Documentation (the README and docs/*.md, found in the installed share/doc/mixerlab
// or this checkout, rendered in a searchable dock: documentation_dock.h), Keyboard shortcuts (a table generated from
// the window's own menus, so it can never disagree with them) and About (versions of MixerLab, Qt,
// LibTorch and the libraries, and the BLAS LibTorch loaded, with a warning for the slow reference BLAS).
#pragma once
#include <QPair>
#include <QString>
#include <QStringList>
#include <QVector>

class QMainWindow;
class QMenuBar;

namespace mixerlab::gui {

void addHelpMenu(QMainWindow* window);

// (menu path, shortcut) for every action with a shortcut, in menu order: "Run > Train", "Ctrl+R".
QVector<QPair<QString, QString>> shortcutTable(const QMenuBar* menus);
// The About box's text (plain lines: versions, BLAS, cores).
QString aboutText();
// The documentation files found (README.md first), absolute paths.
QStringList documentationFiles();
class DocumentationDock;
// Help > Documentation: shows (creating it the first time) the window's documentation dock.
DocumentationDock* showDocumentation(QMainWindow* window);

}  // namespace mixerlab::gui
