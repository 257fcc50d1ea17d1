// JSON form of TrainConfig and the LR schedule horizon (see train_config.h).
#include "core/config/train_config.h"

namespace mixerlab {

#define MIXERLAB_TRAIN_FIELDS(X)                                                                                 \
  X(batch_size) X(grad_accum_steps) X(learning_rate) X(weight_decay) X(beta1) X(beta2) X(adam_eps) X(warmup_steps) \
  X(schedule) X(min_lr_ratio) X(grad_clip_norm) X(max_steps) X(max_tokens) X(max_wall_s) X(schedule_steps)       \
  X(eval_every) X(eval_batches) X(log_every) X(checkpoint_every) X(keep_checkpoints) X(seed) X(device) X(threads) \
  X(batch_mode) X(padding_side)

nlohmann::json TrainConfig::toJson() const {
  nlohmann::json j;
#define X(field) j[#field] = field;
  MIXERLAB_TRAIN_FIELDS(X)
#undef X
  return j;
}

TrainConfig TrainConfig::fromJson(const nlohmann::json& j) {
  TrainConfig c;
#define X(field) c.field = j.value(#field, c.field);
  MIXERLAB_TRAIN_FIELDS(X)
#undef X
  return c;
}

int64_t TrainConfig::scheduleHorizon(int64_t tokens_per_step) const {
  if (schedule_steps > 0) return schedule_steps;
  if (max_steps > 0) return max_steps;
  if (max_tokens > 0 && tokens_per_step > 0) return (max_tokens + tokens_per_step - 1) / tokens_per_step;
  return 0;  // wall-clock only: constant LR after warmup unless schedule_steps is given
}

}  // namespace mixerlab
