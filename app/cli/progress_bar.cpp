// Progress display (see progress_bar.h).
#include "app/cli/progress_bar.h"

#include <unistd.h>

#include <cstdio>

#include "core/analysis/format.h"

namespace mixerlab::cli {

ProgressDisplay::ProgressDisplay() : terminal_(::isatty(STDOUT_FILENO) == 1) {}

void ProgressDisplay::update(const TrainProgress& p) {
  char loss[64] = "";
  if (p.train_loss) std::snprintf(loss, sizeof loss, " loss %.4f", *p.train_loss);
  char eval[64] = "";
  if (p.eval_loss) std::snprintf(eval, sizeof eval, " eval %.4f", *p.eval_loss);
  const double eta = p.fraction_done > 0 ? p.wall_s * (1.0 - p.fraction_done) / p.fraction_done : 0;
  const std::string steps =
      p.max_steps > 0 ? std::to_string(p.step) + "/" + std::to_string(p.max_steps) : std::to_string(p.step);
  if (!terminal_) {
    std::printf("step %s tokens %lld%s%s lr %.3g %.0f tokens/s elapsed %s\n", steps.c_str(),
                static_cast<long long>(p.tokens), loss, eval, p.learning_rate, p.tokens_per_s,
                formatDuration(p.wall_s).c_str());
    std::fflush(stdout);
    return;
  }
  constexpr int kWidth = 24;
  const int filled = static_cast<int>(p.fraction_done * kWidth);
  std::string bar(filled, '#');
  bar.append(kWidth - filled, '.');
  std::printf("\r[%s] %3.0f%% step %s%s%s %.0f tok/s ETA %s   ", bar.c_str(), 100.0 * p.fraction_done, steps.c_str(),
              loss, eval, p.tokens_per_s, formatDuration(eta).c_str());
  std::fflush(stdout);
  bar_visible_ = true;
}

void ProgressDisplay::line(const std::string& text) {
  if (bar_visible_) std::printf("\n");
  bar_visible_ = false;
  std::printf("%s\n", text.c_str());
  std::fflush(stdout);
}

void ProgressDisplay::finish() {
  if (bar_visible_) std::printf("\n");
  bar_visible_ = false;
  std::fflush(stdout);
}

}  // namespace mixerlab::cli
