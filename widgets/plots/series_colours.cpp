// The shared name -> colour registry (see series_colours.h).
#include "widgets/plots/series_colours.h"

#include <algorithm>

namespace mixerlab::widgets {

QColor SeriesColours::paletteColour(int slot) {
  static const QColor palette[] = {
      QColor(31, 119, 180), QColor(214, 39, 40), QColor(44, 160, 44),   QColor(148, 103, 189), QColor(255, 127, 14),
      QColor(23, 190, 207), QColor(140, 86, 75), QColor(227, 119, 194), QColor(127, 127, 127), QColor(188, 189, 34)};
  return palette[slot % 10];
}

QColor SeriesColours::colour(const QString& name) {
  auto it = slots_.find(name);
  if (it == slots_.end()) {
    it = slots_.insert(name, next_slot_++);
    const int slot = it.value();
    if (on_assigned_) on_assigned_();
    return paletteColour(slot);
  }
  return paletteColour(it.value());
}

void SeriesColours::restore(const QHash<QString, int>& assignments) {
  slots_.clear();
  next_slot_ = 0;
  for (auto it = assignments.cbegin(); it != assignments.cend(); ++it) {
    if (it.value() < 0) continue;
    slots_.insert(it.key(), it.value());
    next_slot_ = std::max(next_slot_, it.value() + 1);
  }
}

void SeriesColours::forget() {
  slots_.clear();
  next_slot_ = 0;
}

}  // namespace mixerlab::widgets
