// How a training run starts: the new / resume / fork policy (checked before anything is written),
// the device set-up, restoring model, optimizer, RNG and trainer state from the checkpoint the
// policy picked, and recording run.json. trainRun (trainer.cpp) calls these in this order.
#pragma once
#include <filesystem>
#include <optional>
#include <string>

#include <c10/core/Device.h>

#include "core/runs/run_directory.h"
#include "core/runs/run_log.h"
#include "core/train/checkpoint.h"
#include "core/train/trainer.h"

namespace torch::optim {
class Optimizer;
}

namespace mixerlab {

enum class StartKind { New, Resume, Fork };

struct StartPlan {
  StartKind kind = StartKind::New;
  std::filesystem::path fork_checkpoint;  // the checkpoint folder a fork starts from
};

// Checks the request against the run directory (a new run must not overwrite one; a resume and a
// fork must match the stored model config). Throws MixerLabError before anything is written.
StartPlan planRunStart(const TrainRequest& request);

struct TrainDevice {
  int threads = 0;  // CPU intra-op threads in use
  c10::Device device{c10::kCPU};
  std::string description;  // describeDevice(): recorded in run.json
};

// Threads and device for the run; warns in the log when LibTorch uses the slow reference BLAS.
TrainDevice setUpTrainDevice(const TrainConfig& train, RunLog& log);

// Loads weights, optimizer, RNG and trainer state from the fork checkpoint or the latest
// checkpoint of a resumed run, and makes the metrics log agree with the restored step (a fork
// copies the parent's records up to it). A new run (or a resume without checkpoints) starts at 0.
// The checkpoint's tokenizer.model must equal tokenizer_bytes (the one the data was prepared
// with): a changed tokenizer throws MixerLabError naming the checkpoint and the ways out.
TrainerState restoreRunStart(const StartPlan& plan, const RunPaths& paths, LanguageModel& model,
                             torch::optim::Optimizer& optimizer, const std::string& run_name,
                             const std::string& tokenizer_bytes, RunLog& log);

// Writes run.json for this start (config, provenance, parameter count, training FLOPs per token).
void recordRunStart(const TrainRequest& request, const StartPlan& plan, const RunPaths& paths,
                    const TrainDevice& device, const LanguageModel& model, const TrainerState& state);

}  // namespace mixerlab
