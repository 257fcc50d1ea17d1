// Terminal progress bar with ETA for training; plain log lines when stdout is not a terminal.
#pragma once
#include <string>

#include "core/train/trainer.h"

namespace mixerlab::cli {

class ProgressDisplay {
 public:
  ProgressDisplay();
  void update(const TrainProgress& p);
  void line(const std::string& text);  // a log line that must not be overwritten by the bar
  void finish();

 private:
  bool terminal_;
  bool bar_visible_ = false;
};

}  // namespace mixerlab::cli
