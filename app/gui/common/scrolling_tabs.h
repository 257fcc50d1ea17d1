// Pages that scroll: each page of the main window's tabs (and a dock's content that grows, such
// as the comparison) sits in a frameless scroll area that gives it the whole space while there is
// room and scrolls it when the window is smaller than the page's least size, so the window itself
// fits a 1024x700 screen whatever a page needs.
#pragma once
#include <QString>

class QTabWidget;
class QWidget;

namespace mixerlab::gui {

// `page` in a frameless scroll area that fills with it while it fits (a dock's content, say).
QWidget* scrollingPage(QWidget* page, QWidget* parent);
void addScrollingTab(QTabWidget* tabs, QWidget* page, const QString& label);
// The page the tab widget shows (the page, not its scroll area); nullptr when none.
QWidget* currentTabPage(const QTabWidget* tabs);
QWidget* tabPage(const QTabWidget* tabs, int index);
void showTabPage(QTabWidget* tabs, QWidget* page);

}  // namespace mixerlab::gui
