// The start of a data-parallel run: rank 0 has restored (or initialised) the model, the optimizer
// and the trainer state the single-process way; every other rank receives all three from it by
// broadcast (weights and buffers as tensors, the optimizer's state and the trainer state as
// serialized bytes), so the ranks start identical whether the checkpoint folder is visible to them
// or not, and a run resumes with any world size.
#pragma once
#include <string>

#include "core/distributed/process_group.h"
#include "core/models/language_model.h"
#include "core/train/checkpoint.h"

namespace torch::optim {
class Optimizer;
}

namespace mixerlab {

void synchronizeRunStart(ProcessGroup& group, LanguageModel& model, torch::optim::Optimizer& optimizer,
                         TrainerState& state);

// The largest |w - w_rank0| over every weight of every rank (0 when the ranks agree exactly).
double maxWeightDifferenceFromRank0(ProcessGroup& group, LanguageModel& model);

// Sends rank 0's `bytes` to every rank (every rank calls it; the others' `bytes` are replaced).
void broadcastBytes(ProcessGroup& group, std::string& bytes);

// True on every rank when `flag` is true on any (a stop request, a budget reached by wall-clock).
bool anyRank(ProcessGroup& group, bool flag);
// The mean of `value` over the ranks.
double meanOverRanks(ProcessGroup& group, double value);

}  // namespace mixerlab
