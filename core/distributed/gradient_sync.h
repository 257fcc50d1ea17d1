// Gradient averaging for data-parallel training, overlapped with backward as in PyTorch's DDP:
// parameters are grouped into buckets of about bucket_bytes (in reverse order, the order backward
// produces their gradients), a hook on each parameter copies its finished gradient into its bucket,
// and a full bucket's all-reduce starts at once while backward goes on. Buckets are launched in
// index order on every rank (collectives must match across ranks). finish() waits for them and
// writes the averaged gradients back. With gradient accumulation only the last micro-batch's
// backward is armed: its hooks see that gradient plus what .grad accumulated before.
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include <ATen/core/Tensor.h>

#include "core/distributed/process_group.h"

namespace mixerlab {

class GradientSync {
 public:
  GradientSync(std::vector<at::Tensor> parameters, ProcessGroup& group, int64_t bucket_bytes = 8 << 20);
  GradientSync(const GradientSync&) = delete;
  GradientSync& operator=(const GradientSync&) = delete;

  void armForNextBackward();  // the coming backward is the step's last
  // After that backward: launches buckets still waiting (parameters without a gradient count as
  // zero), waits for every all-reduce and sets each parameter's .grad to the mean over ranks.
  void finish();
  int bucketCount() const { return static_cast<int>(buckets_.size()); }

 private:
  struct Bucket {
    std::vector<size_t> parameters;  // indices into parameters_
    std::vector<int64_t> offsets;    // element offset of each in `flat`
    at::Tensor flat;
    int ready = 0;
    std::unique_ptr<PendingCollective> pending;
  };
  void onGradient(size_t parameter, const at::Tensor& grad);
  void launchReadyBuckets();

  std::vector<at::Tensor> parameters_;
  std::vector<size_t> bucket_of_, slot_of_;
  std::vector<bool> seen_;
  std::vector<Bucket> buckets_;
  ProcessGroup& group_;
  size_t next_to_launch_ = 0;
  bool armed_ = false;
  std::mutex mutex_;  // hooks may run on autograd's device threads
};

}  // namespace mixerlab
