// Scrolling tab pages (see scrolling_tabs.h).
#include "app/gui/common/scrolling_tabs.h"

#include <QScrollArea>
#include <QTabWidget>

namespace mixerlab::gui {

QWidget* scrollingPage(QWidget* page, QWidget* parent) {
  auto* scroll = new QScrollArea(parent);
  scroll->setObjectName(page->objectName().isEmpty() ? "page-scroll" : page->objectName() + "-scroll");
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setWidgetResizable(true);  // the page fills the area while it fits, and scrolls when not
  scroll->setWidget(page);
  return scroll;
}

void addScrollingTab(QTabWidget* tabs, QWidget* page, const QString& label) {
  tabs->addTab(scrollingPage(page, tabs), label);
}

QWidget* tabPage(const QTabWidget* tabs, int index) {
  auto* scroll = qobject_cast<QScrollArea*>(tabs->widget(index));
  return scroll ? scroll->widget() : tabs->widget(index);
}

QWidget* currentTabPage(const QTabWidget* tabs) { return tabPage(tabs, tabs->currentIndex()); }

void showTabPage(QTabWidget* tabs, QWidget* page) {
  for (int i = 0; i < tabs->count(); ++i) {
    if (tabPage(tabs, i) == page) tabs->setCurrentIndex(i);
  }
}

}  // namespace mixerlab::gui
