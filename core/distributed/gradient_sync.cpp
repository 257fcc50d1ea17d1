// Bucketed, overlapped gradient all-reduce (see gradient_sync.h).
#include "core/distributed/gradient_sync.h"

#include <torch/torch.h>

namespace mixerlab {

GradientSync::GradientSync(std::vector<at::Tensor> parameters, ProcessGroup& group, int64_t bucket_bytes)
    : parameters_(std::move(parameters)), group_(group) {
  bucket_of_.assign(parameters_.size(), 0);
  slot_of_.assign(parameters_.size(), 0);
  seen_.assign(parameters_.size(), false);
  // Reverse order: the last layers' gradients come first in backward, so their bucket fills first.
  int64_t bucket_size = 0;
  for (size_t k = parameters_.size(); k-- > 0;) {
    const at::Tensor& p = parameters_[k];
    if (!p.requires_grad()) continue;
    const int64_t bytes = p.numel() * static_cast<int64_t>(p.element_size());
    if (buckets_.empty() || (bucket_size > 0 && bucket_size + bytes > bucket_bytes)) {
      buckets_.emplace_back();
      bucket_size = 0;
    }
    Bucket& bucket = buckets_.back();
    bucket_of_[k] = buckets_.size() - 1;
    slot_of_[k] = bucket.parameters.size();
    bucket.offsets.push_back(
        bucket.parameters.empty() ? 0 : bucket.offsets.back() + parameters_[bucket.parameters.back()].numel());
    bucket.parameters.push_back(k);
    bucket_size += bytes;
  }
  for (Bucket& bucket : buckets_) {
    const at::Tensor& last = parameters_[bucket.parameters.back()];
    bucket.flat = torch::zeros({bucket.offsets.back() + last.numel()}, last.options().requires_grad(false));
  }
  for (size_t k = 0; k < parameters_.size(); ++k) {
    if (!parameters_[k].requires_grad()) continue;
    parameters_[k].register_hook([this, k](const at::Tensor& grad) {
      onGradient(k, grad);
      return at::Tensor();  // the gradient itself is unchanged
    });
  }
}

void GradientSync::armForNextBackward() {
  std::lock_guard<std::mutex> lock(mutex_);
  armed_ = true;
  next_to_launch_ = 0;
  std::fill(seen_.begin(), seen_.end(), false);
  for (Bucket& bucket : buckets_) {
    bucket.ready = 0;
    bucket.flat.zero_();
    bucket.pending.reset();
  }
}

void GradientSync::onGradient(size_t k, const at::Tensor& grad) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!armed_ || seen_[k]) return;
  seen_[k] = true;
  Bucket& bucket = buckets_[bucket_of_[k]];
  const at::Tensor& p = parameters_[k];
  at::Tensor slot = bucket.flat.narrow(0, bucket.offsets[slot_of_[k]], p.numel());
  torch::NoGradGuard no_grad;
  slot.copy_(grad.reshape({-1}));
  if (p.grad().defined()) slot.add_(p.grad().reshape({-1}));  // earlier micro-batches of this step
  ++bucket.ready;
  launchReadyBuckets();
}

void GradientSync::launchReadyBuckets() {
  while (next_to_launch_ < buckets_.size() &&
         buckets_[next_to_launch_].ready == static_cast<int>(buckets_[next_to_launch_].parameters.size())) {
    Bucket& bucket = buckets_[next_to_launch_++];
    bucket.pending = group_.allReduceSumAsync(bucket.flat);
  }
}

void GradientSync::finish() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (; next_to_launch_ < buckets_.size(); ++next_to_launch_) {  // unused parameters: zeros
    Bucket& bucket = buckets_[next_to_launch_];
    bucket.pending = group_.allReduceSumAsync(bucket.flat);
  }
  torch::NoGradGuard no_grad;
  const double world = group_.worldSize();
  for (Bucket& bucket : buckets_) {
    bucket.pending->wait();
    bucket.flat.div_(world);
    for (size_t slot = 0; slot < bucket.parameters.size(); ++slot) {
      at::Tensor& p = parameters_[bucket.parameters[slot]];
      const at::Tensor mean = bucket.flat.narrow(0, bucket.offsets[slot], p.numel()).view(p.sizes());
      if (p.grad().defined()) {
        p.mutable_grad().copy_(mean);
      } else {
        p.mutable_grad() = mean.clone();
      }
    }
  }
  armed_ = false;
}

}  // namespace mixerlab
