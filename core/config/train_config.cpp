// TrainConfig's field declarations, its JSON form and the LR schedule horizon (see train_config.h).
#include "core/config/train_config.h"

#include <algorithm>
#include <cmath>

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
          .integer("threads", &TrainConfig::threads, 0, 1024, "CPU threads",
                   "LibTorch CPU threads; 0 = all cores; at most 4 per core of the machine that trains")
          .group("Precision")
          .choice("precision", &TrainConfig::precision, {"fp32", "bf16", "fp16", "fp16_on_cuda"}, "Precision",
                  "the forward's arithmetic: fp32, or autocast to bf16 (A100/H100 and newer GPUs, and the CPU) or "
                  "fp16 (GPUs without bf16, such as the research's V100s; needs loss scaling); fp16_on_cuda: fp16 "
                  "on a CUDA device and fp32 elsewhere (the research trained every run in fp16 AMP); weights, "
                  "optimizer state and the loss stay fp32")
          .choice("loss_scaling", &TrainConfig::loss_scaling, {"auto", "dynamic", "none"}, "Loss scaling",
                  "auto: dynamic for fp16, none otherwise; dynamic: scale the loss before backward, skip steps "
                  "whose gradients overflow and halve the scale, double it after a run of finite steps")
          .number("initial_loss_scale", &TrainConfig::initial_loss_scale, 1e-6, 1e38, "Initial loss scale",
                  "dynamic loss scaling's first scale (PyTorch's GradScaler starts at 65536 = 2^16)")
          .integer("loss_scale_growth_interval", &TrainConfig::loss_scale_growth_interval, 1, kFieldMaxInteger,
                   "Loss-scale growth interval", "finite steps in a row before the loss scale doubles")
          .unit("steps")
          .group("Data")
          .choice("batch_mode", &TrainConfig::batch_mode, {"padded", "packed", "chunked"}, "Batch mode",
                  "padded (research, TinyStories): one document per row, its beginning kept, padded to T (pads "
                  "excluded from the loss); packed: documents concatenated (see pack_separator) and cut into rows of "
                  "T; chunked (research, Fineweb): each document cut into rows of T, its remainder dropped")
          .choice("padding_side", &TrainConfig::padding_side, {"left", "right"}, "Padding side",
                  "padded mode: left (research: its tokenizer's default, relied on by the last-token embedding, "
                  "inference and the autoencoder; the first token is a target, predicted from the pads) or right "
                  "(the first token is never a target, and the last position of a short row is a pad)")
          .choice("pad_token", &TrainConfig::pad_token, {"eos", "pad"}, "Pad token",
                  "padded mode: eos (research: the pads are the eos token, and as in HF's language-modelling "
                  "collator every position holding it gets no target, a real eos included) or pad (the "
                  "tokenizer's separate pad token)")
          .choice("newline", &TrainConfig::newline, {"token", "unk"}, "Newline",
                  "how \"\\n\" inside a document is encoded: token (MixerLab: the tokenizer's newline token, so "
                  "generated text keeps its line breaks) or unk (research: its tokenizer had no newline, so each "
                  "run of newlines became one unk token); a separate token cache")
          .choice("pack_separator", &TrainConfig::pack_separator, {"eos", "none"}, "Pack separator",
                  "packed mode: eos (MixerLab: an eos token after each document, so the model sees and learns "
                  "where documents end) or none (research: its packed Fineweb runs concatenated documents "
                  "directly; its TinyStories runs did not pack)")
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
                   "optimizer steps the decay spans; 0 = max_steps, else derived from max_tokens, else from "
                   "schedule_epochs")
          .unit("steps")
          .number("schedule_epochs", &TrainConfig::schedule_epochs, 0.0, 1e6, "Schedule epochs",
                  "when max_wall_s is the only budget: the decay spans this many epochs of the training split and "
                  "the run stops there unless the clock stops it first (research: num_train_epochs, runs cut by the "
                  "clock); 0 = constant learning rate after warm-up")
          .unit("epochs")
          .choice("schedule_horizon", &TrainConfig::schedule_horizon, {"budget", "epochs"}, "Schedule spans",
                  "budget: the decay ends at the step or token budget (with only max_wall_s, at schedule_epochs); "
                  "epochs: it spans schedule_epochs whatever the budget, so a budget reached first stops the run "
                  "mid-schedule (the research's fixed-compute runs, stopped by the clock)")
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
                   "batches per evaluation, from the start of the eval split; 0 = all of it (the research "
                   "evaluated the whole split, every 4000 steps)")
          .choice("eval_weighting", &TrainConfig::eval_weighting, {"samples", "tokens"}, "Eval weighting",
                  "samples (research, HF Trainer: each batch's mean cross-entropy weighted by its rows) or tokens "
                  "(every target counts once); multi_token runs report pass 0, comparable with other runs")
          .integer("log_every", &TrainConfig::log_every, 1, kFieldMaxInteger, "Log every",
                   "steps per train-loss record (mean over those steps)")
          .unit("steps")
          .integer("checkpoint_every", &TrainConfig::checkpoint_every, 0, kFieldMaxInteger, "Checkpoint every",
                   "steps between checkpoints (plus one at the end and on stop); 0 = only those")
          .unit("steps")
          .integer("keep_checkpoints", &TrainConfig::keep_checkpoints, 1, 1000, "Checkpoints kept",
                   "newest checkpoints kept on disk")
          .boolean("stop_on_divergence", &TrainConfig::stop_on_divergence, "Stop on divergence",
                   "fail the run at the first logged train loss above 1.5 x ln(vocabulary), far worse than guessing "
                   "uniformly, instead of warning and training on; its last checkpoint is kept");
  return fields;
}

nlohmann::json TrainConfig::toJson() const { return trainFields().write(*this); }

TrainConfig TrainConfig::fromJson(const nlohmann::json& j) { return trainFields().readStored(completeStored(j)); }

nlohmann::json TrainConfig::completeStored(nlohmann::json train) {
  if (!train.is_object()) return train;
  // Written before these keys existed: the run used <pad>, </s> between packed documents, token
  // weighting and a constant LR under a time-only budget (its padding_side was always stored).
  if (!train.contains("pad_token")) train["pad_token"] = "pad";
  if (!train.contains("newline")) train["newline"] = "token";
  if (!train.contains("pack_separator")) train["pack_separator"] = "eos";
  if (!train.contains("eval_weighting")) train["eval_weighting"] = "tokens";
  if (!train.contains("schedule_epochs")) train["schedule_epochs"] = 0.0;
  return train;
}

const std::vector<std::string>& executionSettingKeys() {
  static const std::vector<std::string> keys = {"train.device", "train.threads"};
  return keys;
}

bool isExecutionSetting(const std::string& dotted_key) {
  const auto& keys = executionSettingKeys();
  return std::find(keys.begin(), keys.end(), dotted_key) != keys.end();
}

bool isDeviceName(const std::string& device) {
  if (device == "auto" || device == "cpu" || device == "cuda") return true;
  if (device.rfind("cuda:", 0) != 0 || device.size() == 5 || device.size() > 8) return false;
  return std::all_of(device.begin() + 5, device.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool TrainConfig::horizonFromEpochs() const {
  if (schedule_steps > 0 || schedule_epochs <= 0) return false;
  return schedule_horizon == "epochs" || (max_steps == 0 && max_tokens == 0);
}

int64_t TrainConfig::scheduleHorizon(int64_t tokens_per_step, int64_t micro_batches_per_epoch) const {
  if (schedule_steps > 0) return schedule_steps;
  if (horizonFromEpochs()) {
    if (micro_batches_per_epoch <= 0) return 0;
    // HF Trainer: max_steps = ceil(num_train_epochs x max(batches per epoch // accumulation, 1)).
    const int64_t steps_per_epoch = std::max<int64_t>(micro_batches_per_epoch / grad_accum_steps, 1);
    return static_cast<int64_t>(std::ceil(schedule_epochs * static_cast<double>(steps_per_epoch)));
  }
  if (max_steps > 0) return max_steps;
  if (max_tokens > 0 && tokens_per_step > 0) return (max_tokens + tokens_per_step - 1) / tokens_per_step;
  return 0;  // no horizon: constant LR after warmup
}

}  // namespace mixerlab
