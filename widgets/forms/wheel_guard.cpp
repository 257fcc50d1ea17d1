// The wheel guard (see wheel_guard.h): one application-wide event filter object.
#include "widgets/forms/wheel_guard.h"

#include <QAbstractScrollArea>
#include <QCoreApplication>
#include <QEvent>
#include <QWidget>

namespace mixerlab::widgets {
namespace {

class WheelGuard : public QObject {
 public:
  using QObject::QObject;
  bool eventFilter(QObject* watched, QEvent* event) override {
    if (event->type() != QEvent::Wheel) return false;
    auto* widget = qobject_cast<QWidget*>(watched);
    if (!widget || widget->hasFocus()) return false;
    // Kept from the editor and handed to the nearest scroll area around it, which scrolls.
    for (QWidget* parent = widget->parentWidget(); parent; parent = parent->parentWidget()) {
      if (auto* area = qobject_cast<QAbstractScrollArea*>(parent)) {
        QCoreApplication::sendEvent(area->viewport(), event);
        break;
      }
    }
    return true;
  }
};

WheelGuard* theGuard() {
  static WheelGuard* guard = new WheelGuard(QCoreApplication::instance());
  return guard;
}

}  // namespace

void guardWheel(QWidget* editor) {
  editor->setFocusPolicy(Qt::StrongFocus);  // the wheel alone never focuses it
  editor->installEventFilter(theGuard());
}

}  // namespace mixerlab::widgets
