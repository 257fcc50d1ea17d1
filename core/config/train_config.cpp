// TrainConfig's field declarations, its JSON form and the LR schedule horizon (see train_config.h).
#include "core/config/train_config.h"

namespace mixerlab {

const FieldSet<TrainConfig>& trainFields() {
  static const auto fields =
      FieldSet<TrainConfig>()
          .group("Training")
          .integer("batch_size", &TrainConfig::batch_size, 1, 1 << 20, "Batch size", "sequences per micro-batch")
          .unit("sequences")
          .integer("grad_accum_steps", &TrainConfig::grad_accum_steps, 1, 1 << 20, "Gradient accumulation",
                   "micro-batches per optimizer step")
          .integer("seed", &TrainConfig::seed, 0, kFieldMaxInteger, "Seed", "initialisation and data order")
          .text("device", &TrainConfig::device, "Device", "auto, cpu, cuda or cuda:N")
          .integer("threads", &TrainConfig::threads, 0, 1024, "CPU threads", "LibTorch CPU threads; 0 = all cores")
          .choice("batch_mode", &TrainConfig::batch_mode, {"padded", "packed"}, "Batch mode",
                  "padded: one document per row, truncated or padded to T (pads excluded from the loss); packed: "
                  "documents joined with </s> and cut into rows of T")
          .choice("padding_side", &TrainConfig::padding_side, {"left", "right"}, "Padding side", "padded mode")
          .group("Optimizer")
          .number("learning_rate", &TrainConfig::learning_rate, 0.0, 10.0, "Learning rate", "peak AdamW learning rate")
          .number("weight_decay", &TrainConfig::weight_decay, 0.0, 10.0, "Weight decay", "decoupled AdamW weight decay")
          .number("beta1", &TrainConfig::beta1, 0.0, 0.999999, "AdamW beta1", "first-moment decay")
          .number("beta2", &TrainConfig::beta2, 0.0, 0.999999999, "AdamW beta2", "second-moment decay")
          .number("adam_eps", &TrainConfig::adam_eps, 0.0, 1.0, "AdamW epsilon", "denominator epsilon")
          .number("grad_clip_norm", &TrainConfig::grad_clip_norm, 0.0, 1e9, "Gradient clip norm",
                  "global gradient-norm clipping; 0 disables it")
          .group("Schedule")
          .integer("warmup_steps", &TrainConfig::warmup_steps, 0, kFieldMaxInteger, "Warm-up steps",
                   "linear warm-up from 0 to the peak learning rate")
          .unit("steps")
          .choice("schedule", &TrainConfig::schedule, {"linear", "cosine", "constant"}, "Schedule",
                  "after warm-up: linear or cosine decay to min_lr_ratio x peak at the horizon, or constant")
          .number("min_lr_ratio", &TrainConfig::min_lr_ratio, 0.0, 1.0, "Minimum LR ratio",
                  "decay floor as a fraction of the peak learning rate")
          .integer("schedule_steps", &TrainConfig::schedule_steps, 0, kFieldMaxInteger, "Schedule horizon",
                   "optimizer steps the decay spans; 0 = max_steps, else derived from max_tokens")
          .unit("steps")
          .group("Budget")
          .integer("max_steps", &TrainConfig::max_steps, 0, kFieldMaxInteger, "Max steps",
                   "stop after this many optimizer steps; 0 = no step budget (training stops at the first budget "
                   "reached; at least one must be set)")
          .unit("steps")
          .integer("max_tokens", &TrainConfig::max_tokens, 0, kFieldMaxInteger, "Max tokens",
                   "stop after this many training tokens; 0 = no token budget")
          .unit("tokens")
          .number("max_wall_s", &TrainConfig::max_wall_s, 0.0, 1e9, "Max wall time",
                  "stop after this much training "
                  "time; 0 = no time budget")
          .unit("s")
          .group("Evaluation and checkpoints")
          .integer("eval_every", &TrainConfig::eval_every, 0, kFieldMaxInteger, "Eval every",
                   "steps between evaluations (plus one at step 0 and one at the end); 0 = only at the end")
          .unit("steps")
          .integer("eval_batches", &TrainConfig::eval_batches, 0, kFieldMaxInteger, "Eval batches",
                   "batches per evaluation; 0 = the whole eval split")
          .integer("log_every", &TrainConfig::log_every, 1, kFieldMaxInteger, "Log every",
                   "steps per train-loss record (mean over those steps)")
          .unit("steps")
          .integer("checkpoint_every", &TrainConfig::checkpoint_every, 0, kFieldMaxInteger, "Checkpoint every",
                   "steps between checkpoints (plus one at the end and on stop); 0 = only those")
          .unit("steps")
          .integer("keep_checkpoints", &TrainConfig::keep_checkpoints, 1, 1000, "Checkpoints kept",
                   "newest checkpoints kept on disk");
  return fields;
}

nlohmann::json TrainConfig::toJson() const { return trainFields().write(*this); }

TrainConfig TrainConfig::fromJson(const nlohmann::json& j) { return trainFields().readStored(j); }

int64_t TrainConfig::scheduleHorizon(int64_t tokens_per_step) const {
  if (schedule_steps > 0) return schedule_steps;
  if (max_steps > 0) return max_steps;
  if (max_tokens > 0 && tokens_per_step > 0) return (max_tokens + tokens_per_step - 1) / tokens_per_step;
  return 0;  // wall-clock only: constant LR after warmup unless schedule_steps is given
}

}  // namespace mixerlab
