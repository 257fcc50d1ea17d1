// One colour per named series (a run, or a group of runs), shared by every view that draws it: the
// Curves panels, the side legend and the Scaling tab ask the same registry, so a run or group keeps
// its colour from tab to tab. A name gets the next palette colour the first time it is asked for and
// keeps it until forget().
#pragma once
#include <QColor>
#include <QHash>
#include <QString>

namespace mixerlab::widgets {

class SeriesColours {
 public:
  QColor colour(const QString& name);
  void forget();  // a new project: every name starts again from the first colour

  static QColor paletteColour(int slot);  // the 10-colour palette, cycled

 private:
  QHash<QString, int> slots_;
  int next_slot_ = 0;
};

}  // namespace mixerlab::widgets
