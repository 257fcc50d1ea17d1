// Evaluation loss over a list of eval batches, weighted one of two ways:
// - Samples (the research, as HF Trainer reports it): each batch's mean cross-entropy over its
//   targets, averaged over batches weighted by the batch's number of rows;
// - Tokens: every non-ignored target counts once, so short padded rows do not get the weight of
//   full ones.
// Both agree when every row has the same number of targets (packed batches). Batches without any
// target are skipped. Multi-token models report pass 0 (their loss() in eval mode).
#pragma once
#include <string>
#include <vector>

#include <c10/core/Device.h>

#include "core/data/batching.h"
#include "core/models/language_model.h"
#include "core/train/mixed_precision.h"

namespace mixerlab {

enum class EvalWeighting { Samples, Tokens };
EvalWeighting parseEvalWeighting(const std::string& name);  // "samples" / "tokens"; else MixerLabError
std::string evalWeightingName(EvalWeighting weighting);

// The forward runs under the run's training precision (as the HF Trainer evaluates under autocast);
// the loss itself is taken in fp32.
double evaluateLoss(LanguageModel& model, const std::vector<Batch>& batches, const c10::Device& device,
                    EvalWeighting weighting, Precision precision = Precision::Fp32);

}  // namespace mixerlab
