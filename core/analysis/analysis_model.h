// Loading a ModelSource for analysis: the model (eval mode, CPU), its tokenizer, and the training
// settings that say how its text was encoded and padded. Shared by inversion and retrieval.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/analysis/model_source.h"
#include "core/config/train_config.h"
#include "core/data/tokenizer.h"
#include "core/models/language_model.h"

namespace mixerlab {

struct AnalysisModel {
  LanguageModelPtr model;
  std::unique_ptr<Tokenizer> tokenizer;
  TrainConfig train;  // the run's: newline mode, pad token, padding side
  std::string label;
  int padId() const;                                       // the run's pad token (train.pad_token: eos or <pad>)
  std::vector<int> encode(const std::string& text) const;  // as the run's training data was encoded
};

// Throws MixerLabError naming the path when it is no checkpoint / project, or the run is unknown.
AnalysisModel loadAnalysisModel(const ModelSource& source);

}  // namespace mixerlab
