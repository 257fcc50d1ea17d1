// The sampling values the generation panel edits (a plain mirror of the core's GenerationSettings,
// which widgets cannot include) and the named presets that fill them: Greedy, Balanced, Creative
// and Full distribution. A preset sets only how tokens are chosen; the seed, the length and the
// stop rules stay as the user set them.
#pragma once
#include <QString>
#include <QVector>

namespace mixerlab::widgets {

// Zero values, not defaults: the form's defaults come from its field specs (SamplingSettingsForm::
// defaults(), or values() of a form); the presets set every token-choice field.
struct SamplingValues {
  bool greedy = false;
  double temperature = 0;
  int top_k = 0;  // 0 = all tokens
  double top_p = 0;
  double repetition_penalty = 0;
  quint64 seed = 0;
  int max_new_tokens = 0;
  QString stop_string;  // empty: none
  bool stop_at_eos = false;
  bool reference_decoder = false;  // a full forward per token instead of the family's fast decoder
  QString placement;               // auto, window_end or window_start (masked mixers, Transfixer)

  // True when the token-choice fields (greedy, temperature, top-k, top-p, penalty) are equal.
  bool sameChoice(const SamplingValues& other) const;
};

struct SamplingPreset {
  QString name;
  QString description;
  SamplingValues values;  // only the token-choice fields are applied
};

const QVector<SamplingPreset>& samplingPresets();
// Copies the preset's token-choice fields into `values`.
void applyPreset(const SamplingPreset& preset, SamplingValues& values);
// The name of the preset whose token-choice fields `values` has, else "Custom".
QString presetName(const SamplingValues& values);

}  // namespace mixerlab::widgets
