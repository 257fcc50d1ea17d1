// One colour per named series (a run, or a group of runs), shared by every view that draws it: the
// Curves panels, the side legend and the Scaling tab ask the same registry, so a run or group keeps
// its colour from tab to tab. A name gets the next palette colour the first time it is asked for and
// keeps it until forget(). The assignments can be saved and restored (the app keeps them with the
// project), so a run keeps its colour when the project is opened again, whatever order its runs
// are read in.
#pragma once
#include <QColor>
#include <QHash>
#include <QString>
#include <functional>

namespace mixerlab::widgets {

class SeriesColours {
 public:
  QColor colour(const QString& name);
  void forget();  // a new project: every name starts again from the first colour

  // name -> palette slot, for saving; restore() takes them back (next new name: after the highest).
  QHash<QString, int> assignments() const { return slots_; }
  void restore(const QHash<QString, int>& assignments);
  // Called after a name got its colour for the first time (not on restore or forget).
  void setOnAssigned(std::function<void()> on_assigned) { on_assigned_ = std::move(on_assigned); }

  static QColor paletteColour(int slot);  // the 10-colour palette, cycled

 private:
  QHash<QString, int> slots_;
  int next_slot_ = 0;
  std::function<void()> on_assigned_;
};

}  // namespace mixerlab::widgets
