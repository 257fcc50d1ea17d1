// The header pieces of the per-model views (generation column, retrieval column, inversion model
// row): a bold title label and a flat "✕" button that asks to remove the view.
#pragma once
#include <QString>

class QLabel;
class QToolButton;
class QWidget;

namespace mixerlab::widgets {

// A bold title label named `object_name`; with `selectable` its text can be selected with the mouse.
QLabel* makeBoldTitle(QWidget* parent, const QString& object_name, bool selectable);

// A flat button showing "✕", named `object_name`, with `tooltip`.
QToolButton* makeRemoveButton(QWidget* parent, const QString& object_name, const QString& tooltip);

}  // namespace mixerlab::widgets
