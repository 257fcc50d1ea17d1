// Header pieces of the per-model views (see column_header.h).
#include "widgets/tables/column_header.h"

#include <QLabel>
#include <QToolButton>

namespace mixerlab::widgets {

QLabel* makeBoldTitle(QWidget* parent, const QString& object_name, bool selectable) {
  auto* title = new QLabel(parent);
  title->setObjectName(object_name);
  QFont bold = title->font();
  bold.setBold(true);
  title->setFont(bold);
  if (selectable) title->setTextInteractionFlags(Qt::TextSelectableByMouse);
  return title;
}

QToolButton* makeRemoveButton(QWidget* parent, const QString& object_name, const QString& tooltip) {
  auto* remove = new QToolButton(parent);
  remove->setObjectName(object_name);
  remove->setText(QString(QChar(0x2715)));  // ✕
  remove->setAutoRaise(true);
  remove->setToolTip(tooltip);
  return remove;
}

}  // namespace mixerlab::widgets
