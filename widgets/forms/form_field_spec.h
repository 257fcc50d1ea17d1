// FieldSpec: the plain description of one form field (key, label, type, default, bounds or
// choices, help, group) that the app layer makes from the core's field declarations and hands
// to the widgets (ConfigForm, the generation and inversion settings forms), which never see core
// types. The forms take their ranges, defaults, labels and tooltips from it.
#pragma once
#include <QMap>
#include <QString>
#include <QStringList>
#include <QVariant>

namespace mixerlab::widgets {

struct FieldSpec {
  QString key;  // dotted JSON path, e.g. "model.d_model" or "model.options.mixing"
  QString label;
  enum Type { Integer, Number, Boolean, Choice, Text } type = Text;
  QVariant default_value;   // invalid: no fixed default (left out of the run while empty)
  double min = 0, max = 0;  // inclusive bounds; ConfigForm shows them in the tooltip, its validator decides
  QStringList choices;
  QStringList choice_labels;  // what a combo box shows for each choice; empty: the choices themselves
  QString help;
  QString group;                 // "Run", "Architecture", "Training", "Budget", ...
  QStringList visible_for_arch;  // empty = every architecture (matched against "model.arch")
  // Architectures whose default differs from default_value (a key that two families declare with
  // different defaults, e.g. dropout). On a change of architecture an unedited value follows.
  QMap<QString, QVariant> default_for_arch;
  QVariant defaultFor(const QString& arch) const { return default_for_arch.value(arch, default_value); }
};

}  // namespace mixerlab::widgets
