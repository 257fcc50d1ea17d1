// Sampling presets (see sampling_presets.h).
#include "widgets/forms/sampling_presets.h"

#include <cmath>

namespace mixerlab::widgets {

namespace {
SamplingValues choice(bool greedy, double temperature, int top_k, double top_p, double penalty) {
  SamplingValues v;
  v.greedy = greedy;
  v.temperature = temperature;
  v.top_k = top_k;
  v.top_p = top_p;
  v.repetition_penalty = penalty;
  return v;
}
bool near(double a, double b) { return std::abs(a - b) < 1e-9; }
}  // namespace

bool SamplingValues::sameChoice(const SamplingValues& o) const {
  if (greedy || o.greedy) return greedy == o.greedy && near(repetition_penalty, o.repetition_penalty);
  return near(temperature, o.temperature) && top_k == o.top_k && near(top_p, o.top_p) &&
         near(repetition_penalty, o.repetition_penalty);
}

const QVector<SamplingPreset>& samplingPresets() {
  static const QVector<SamplingPreset> presets = {
      {"Greedy", "Always the most likely token: deterministic, shows what the model ranks first.",
       choice(true, 1.0, 0, 1.0, 1.0)},
      {"Balanced", "Temperature 0.8, top-p 0.95: fluent stories with some variety.", choice(false, 0.8, 0, 0.95, 1.0)},
      {"Creative", "Temperature 1.0, top-k 50, top-p 0.98, repetition penalty 1.1: more varied, fewer loops.",
       choice(false, 1.0, 50, 0.98, 1.1)},
      {"Full distribution", "Temperature 1, no truncation: samples the model's distribution as it is.",
       choice(false, 1.0, 0, 1.0, 1.0)},
  };
  return presets;
}

void applyPreset(const SamplingPreset& preset, SamplingValues& values) {
  values.greedy = preset.values.greedy;
  values.temperature = preset.values.temperature;
  values.top_k = preset.values.top_k;
  values.top_p = preset.values.top_p;
  values.repetition_penalty = preset.values.repetition_penalty;
}

QString presetName(const SamplingValues& values) {
  for (const SamplingPreset& preset : samplingPresets()) {
    if (preset.values.sameChoice(values)) return preset.name;
  }
  return "Custom";
}

}  // namespace mixerlab::widgets
