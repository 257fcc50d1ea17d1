// The c10d process group: TCPStore rendezvous, backend vote, and one wrapper over Gloo or NCCL
// (see process_group.h). The NCCL half compiles only with MIXERLAB_WITH_NCCL (a CUDA LibTorch).
#ifndef USE_C10D_GLOO
#define USE_C10D_GLOO 1
#endif
#include "core/distributed/process_group.h"

#include <algorithm>
#include <cstdlib>
#include <optional>

#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#ifdef MIXERLAB_WITH_NCCL
#include <c10/cuda/CUDAFunctions.h>
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

#include "core/util/error.h"
#include "kernels/environment/process_environment.h"

namespace mixerlab {

namespace {

class CollectiveWork : public PendingCollective {
 public:
  explicit CollectiveWork(c10::intrusive_ptr<c10d::Work> work) : work_(std::move(work)) {}
  void wait() override { work_->wait(); }

 private:
  c10::intrusive_ptr<c10d::Work> work_;
};

class FinishedWork : public PendingCollective {
 public:
  void wait() override {}
};

// Any c10d backend with the classic collective calls (ProcessGroupGloo, ProcessGroupNCCL). With a
// staging device (NCCL), a tensor elsewhere (the CPU flags and bytes the trainer agrees on) is
// copied there, reduced or broadcast, and copied back.
template <class Backend>
class C10dGroup : public ProcessGroup {
 public:
  C10dGroup(c10::intrusive_ptr<Backend> group, c10::intrusive_ptr<c10d::Store> store, int rank, int world,
            std::string name, std::optional<c10::Device> staging)
      : group_(std::move(group)),
        store_(std::move(store)),
        rank_(rank),
        world_(world),
        name_(std::move(name)),
        staging_(staging) {}
  int rank() const override { return rank_; }
  int worldSize() const override { return world_; }
  std::string backendName() const override { return name_; }
  void broadcast(at::Tensor& tensor, int root) override {
    c10d::BroadcastOptions options;
    options.rootRank = root;
    staged(tensor, [&](at::Tensor& t) {
      std::vector<at::Tensor> tensors{t};
      group_->broadcast(tensors, options)->wait();
    });
  }
  void allReduceSum(at::Tensor& tensor) override { reduce(tensor, c10d::ReduceOp::SUM); }
  void allReduceMax(at::Tensor& tensor) override { reduce(tensor, c10d::ReduceOp::MAX); }
  std::unique_ptr<PendingCollective> allReduceSumAsync(at::Tensor& tensor) override {
    if (needsStaging(tensor)) {  // not the gradient path (buckets live on the GPU): done at once
      allReduceSum(tensor);
      return std::make_unique<FinishedWork>();
    }
    std::vector<at::Tensor> tensors{tensor};
    return std::make_unique<CollectiveWork>(group_->allreduce(tensors));
  }
  void barrier() override { group_->barrier()->wait(); }

 private:
  bool needsStaging(const at::Tensor& tensor) const { return staging_ && tensor.device() != *staging_; }
  template <class Op>
  void staged(at::Tensor& tensor, Op op) {
    if (!needsStaging(tensor)) {
      op(tensor);
      return;
    }
    at::Tensor on_device = tensor.to(*staging_);
    op(on_device);
    tensor.copy_(on_device);
  }
  void reduce(at::Tensor& tensor, c10d::ReduceOp op) {
    c10d::AllreduceOptions options;
    options.reduceOp = op;
    staged(tensor, [&](at::Tensor& t) {
      std::vector<at::Tensor> tensors{t};
      group_->allreduce(tensors, options)->wait();
    });
  }

  c10::intrusive_ptr<Backend> group_;
  c10::intrusive_ptr<c10d::Store> store_;
  int rank_, world_;
  std::string name_;
  std::optional<c10::Device> staging_;
};

std::unique_ptr<ProcessGroup> joinGloo(const c10::intrusive_ptr<c10d::Store>& store, const DistributedEnv& env,
                                       std::chrono::milliseconds timeout) {
  auto options = c10d::ProcessGroupGloo::Options::create();
  options->timeout = timeout;
  if (const auto interface = kernels::environmentValue(kernels::EnvironmentVariable::kGlooSocketInterface)) {
    options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(*interface));
  } else if (env.master_addr == "127.0.0.1" || env.master_addr == "localhost") {
    options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
  } else {
    options->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
  }
  auto group = c10::make_intrusive<c10d::ProcessGroupGloo>(store, env.rank, env.world_size, options);
  return std::make_unique<C10dGroup<c10d::ProcessGroupGloo>>(group, store, env.rank, env.world_size, "gloo",
                                                             std::nullopt);
}

#ifdef MIXERLAB_WITH_NCCL
std::unique_ptr<ProcessGroup> joinNccl(const c10::intrusive_ptr<c10d::Store>& store, const DistributedEnv& env,
                                       std::chrono::milliseconds timeout, int cuda_device) {
  c10::cuda::set_device(static_cast<c10::DeviceIndex>(cuda_device));  // NCCL binds to the current device
  auto options = c10d::ProcessGroupNCCL::Options::create();
  options->timeout = timeout;
  auto group = c10::make_intrusive<c10d::ProcessGroupNCCL>(store, env.rank, env.world_size, options);
  return std::make_unique<C10dGroup<c10d::ProcessGroupNCCL>>(
      group, store, env.rank, env.world_size, "nccl",
      c10::Device(c10::DeviceType::CUDA, static_cast<c10::DeviceIndex>(cuda_device)));
}
#endif

// Every rank publishes its vote under its rank and reads all of them (the store's get waits).
std::vector<std::string> exchangeVotes(c10d::Store& store, const DistributedEnv& env, const std::string& vote) {
  const std::string prefix = "mixerlab/backend-vote/";
  store.set(prefix + std::to_string(env.rank), std::vector<uint8_t>(vote.begin(), vote.end()));
  std::vector<std::string> votes;
  for (int r = 0; r < env.world_size; ++r) {
    const auto bytes = store.get(prefix + std::to_string(r));
    votes.emplace_back(bytes.begin(), bytes.end());
  }
  return votes;
}

}  // namespace

bool ncclBuiltIn() {
#ifdef MIXERLAB_WITH_NCCL
  return true;
#else
  return false;
#endif
}

std::string backendVote(const JoinOptions& options) {
  return options.cuda_device >= 0 && ncclBuiltIn() ? "nccl" : "gloo";
}

std::string agreedBackend(const std::vector<std::string>& votes, const std::string& requested) {
  const bool all_nccl =
      !votes.empty() && std::all_of(votes.begin(), votes.end(), [](const std::string& v) { return v == "nccl"; });
  if (requested == "gloo") return "gloo";
  if (requested == "nccl" && !all_nccl) {
    const auto first = std::find_if(votes.begin(), votes.end(), [](const std::string& v) { return v != "nccl"; });
    throw MixerLabError("the NCCL backend was requested but rank " + std::to_string(first - votes.begin()) +
                            (ncclBuiltIn() ? " trains on the CPU" : " runs a LibTorch without NCCL"),
                        "give every rank a GPU (train.device \"cuda\" or \"auto\") and a CUDA LibTorch, or use "
                        "the gloo backend");
  }
  if (requested != "auto" && requested != "nccl") {
    throw MixerLabError("unknown process-group backend \"" + requested + "\"", "use auto, gloo or nccl");
  }
  return all_nccl ? "nccl" : "gloo";
}

std::unique_ptr<ProcessGroup> ProcessGroup::join(const DistributedEnv& env, const JoinOptions& options) {
  const std::string where = env.master_addr + ":" + std::to_string(env.master_port);
  try {
    c10d::TCPStoreOptions store_options;
    store_options.port = static_cast<std::uint16_t>(env.master_port);
    store_options.isServer = env.rank == 0;
    store_options.numWorkers = env.world_size;
    store_options.timeout = options.timeout;
    auto store = c10::make_intrusive<c10d::TCPStore>(env.master_addr, store_options);
    const std::string backend = agreedBackend(exchangeVotes(*store, env, backendVote(options)), options.backend);
#ifdef MIXERLAB_WITH_NCCL
    if (backend == "nccl") return joinNccl(store, env, options.timeout, options.cuda_device);
#endif
    return joinGloo(store, env, options.timeout);
  } catch (const MixerLabError&) {
    throw;
  } catch (const std::exception& e) {
    std::string what = e.what();
    if (const size_t frames = what.find("\nException raised from"); frames != std::string::npos) what.resize(frames);
    throw MixerLabError("rank " + std::to_string(env.rank) + " of " + std::to_string(env.world_size) +
                            " could not join the job at " + where + ": " + what,
                        "check that rank 0 runs and MASTER_ADDR/MASTER_PORT reach it (GLOO_SOCKET_IFNAME picks "
                        "the network interface)");
  }
}

}  // namespace mixerlab
