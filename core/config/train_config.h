// Optimisation, budget, data-layout and evaluation settings of one training run. Defaults follow
// the research (docs/fidelity.md): AdamW 0.9/0.999/1e-8, no weight decay, clip 1.0, linear warmup then
// linear decay to zero, left padding with pad = eos, packing without a separator, sample-weighted
// eval; MixerLab keeps its own choice where it is an improvement (a real newline token).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/util/field_set.h"

namespace mixerlab {

struct TrainConfig {
  int64_t batch_size = 16;       // sequences per micro-batch
  int64_t grad_accum_steps = 1;  // micro-batches per optimizer step
  double learning_rate = 5e-4;
  double weight_decay = 0.0;
  double beta1 = 0.9, beta2 = 0.999, adam_eps = 1e-8;
  int64_t warmup_steps = 500;
  std::string schedule = "linear";  // "linear", "cosine" or "constant" (after warmup)
  double min_lr_ratio = 0.0;        // decay floor as a fraction of learning_rate
  double grad_clip_norm = 1.0;      // <= 0 disables clipping
  // Budgets: training stops at whichever is reached first (0 = unlimited; at least one must be set).
  int64_t max_steps = 0;
  int64_t max_tokens = 0;
  double max_wall_s = 0;
  int64_t schedule_steps = 0;    // LR schedule horizon; 0 = max_steps, else from max_tokens, else epochs
  double schedule_epochs = 1.0;  // time-only budgets: horizon (and stop) after this many epochs; 0 = none
  // "budget": the decay spans the step or token budget (a time-only budget: schedule_epochs);
  // "epochs": it spans schedule_epochs whatever the budget, which may cut the run mid-schedule (the
  // research's fixed-compute runs: the clock stopped them, the schedule ran over the configured epochs).
  std::string schedule_horizon = "budget";
  int64_t eval_every = 100;                // steps between evaluations (0 = only at the end)
  int64_t eval_batches = 20;               // eval batches per evaluation (0 = the whole eval split)
  std::string eval_weighting = "samples";  // "samples" (research, HF Trainer) or "tokens"
  int64_t log_every = 10;                  // steps per train-loss record (mean over those steps)
  int64_t checkpoint_every = 100;          // steps between checkpoints (a final one is always written)
  int64_t keep_checkpoints = 2;            // most recent checkpoints kept
  bool stop_on_divergence = false;         // fail at a train loss far above ln(vocab) instead of warning
  uint64_t seed = 42;
  std::string device = "auto";  // "cpu", "cuda", "cuda:N" or "auto"
  int64_t threads = 0;          // CPU threads for LibTorch; 0 = all cores
  // Mixed precision (core/train/mixed_precision.h, loss_scaler.h): the forward's autocast dtype;
  // weights, optimizer state and the loss stay fp32.
  std::string precision = "fp32";             // "fp32", "bf16" or "fp16"
  std::string loss_scaling = "auto";          // "auto" (dynamic for fp16, else none), "dynamic" or "none"
  double initial_loss_scale = 65536.0;        // dynamic scaling's first scale (2^16)
  int64_t loss_scale_growth_interval = 2000;  // finite steps before the scale doubles
  // Data layout of this run (defaults: the research's TinyStories setup, except the newline token
  // and the eos between packed documents, kept as improvements).
  std::string batch_mode = "padded";   // "padded" (one document per row), "packed" or "chunked"
  std::string padding_side = "left";   // padded mode: "left" (research) or "right"
  std::string pad_token = "eos";       // padded mode: "eos" (research: pad = </s>) or "pad" (<pad>)
  std::string newline = "token";       // "token" (the tokenizer's newline) or "unk" (research)
  std::string pack_separator = "eos";  // packed mode: "eos" between documents or "none" (research)

  nlohmann::json toJson() const;
  static TrainConfig fromJson(const nlohmann::json& j);  // stored form: unknown keys ignored
  // A stored run.train object written before the data-fidelity keys existed, completed with the
  // values those runs used (pad_token "pad", pack_separator "eos", eval_weighting "tokens",
  // schedule_epochs 0; newline "token"), so old runs are shown, evaluated and compared as they ran.
  static nlohmann::json completeStored(nlohmann::json train);
  // Optimizer steps the LR schedule spans, given tokens per optimizer step and micro-batches per
  // epoch of the training split: schedule_steps, else (horizonFromEpochs) ceil(schedule_epochs x
  // optimizer steps per epoch) as the HF Trainer derives its max_steps from num_train_epochs, else
  // max_steps, else from max_tokens; 0 = no horizon (constant after warm-up).
  int64_t scheduleHorizon(int64_t tokens_per_step, int64_t micro_batches_per_epoch) const;
  // True when the horizon comes from schedule_epochs (schedule_horizon "epochs", or a time-only
  // budget); the run then also stops there, as the HF Trainer stops after num_train_epochs.
  bool horizonFromEpochs() const;
};

// Run settings that say how a run was executed, not what it trains: the device and the CPU threads
// (a data-parallel rank records its share of the cores). Runs that differ only in these are the same
// experiment: seed groups, the GUI's "Mean by" fields and config comparisons leave them out (shown
// as how each ran). Dotted keys of a run config.
const std::vector<std::string>& executionSettingKeys();
bool isExecutionSetting(const std::string& dotted_key);

// train.device's accepted forms: "auto", "cpu", "cuda" or "cuda:N" (N a device index).
bool isDeviceName(const std::string& device);
inline constexpr const char* kDeviceNames = "\"auto\", \"cpu\", \"cuda\" or \"cuda:N\"";

// The fields of TrainConfig (run.train): the one declaration behind the parser, run.json, the
// schema, the run form and the docs. Defaults are the member initialisers above.
const FieldSet<TrainConfig>& trainFields();

}  // namespace mixerlab
