// Gloo process group over a TCPStore rendezvous (see process_group.h).
#ifndef USE_C10D_GLOO
#define USE_C10D_GLOO 1
#endif
#include "core/distributed/process_group.h"

#include <cstdlib>

#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include "core/util/error.h"

namespace mixerlab {

namespace {

class CollectiveWork : public PendingCollective {
 public:
  explicit CollectiveWork(c10::intrusive_ptr<c10d::Work> work) : work_(std::move(work)) {}
  void wait() override { work_->wait(); }

 private:
  c10::intrusive_ptr<c10d::Work> work_;
};

class GlooGroup : public ProcessGroup {
 public:
  GlooGroup(c10::intrusive_ptr<c10d::ProcessGroupGloo> group, c10::intrusive_ptr<c10d::Store> store, int rank,
            int world)
      : group_(std::move(group)), store_(std::move(store)), rank_(rank), world_(world) {}
  int rank() const override { return rank_; }
  int worldSize() const override { return world_; }
  std::string backendName() const override { return "gloo"; }
  void broadcast(at::Tensor& tensor, int root) override {
    std::vector<at::Tensor> tensors{tensor};
    c10d::BroadcastOptions options;
    options.rootRank = root;
    group_->broadcast(tensors, options)->wait();
  }
  void allReduceSum(at::Tensor& tensor) override { allReduceSumAsync(tensor)->wait(); }
  void allReduceMax(at::Tensor& tensor) override {
    std::vector<at::Tensor> tensors{tensor};
    c10d::AllreduceOptions options;
    options.reduceOp = c10d::ReduceOp::MAX;
    group_->allreduce(tensors, options)->wait();
  }
  std::unique_ptr<PendingCollective> allReduceSumAsync(at::Tensor& tensor) override {
    std::vector<at::Tensor> tensors{tensor};
    return std::make_unique<CollectiveWork>(group_->allreduce(tensors));
  }
  void barrier() override { group_->barrier()->wait(); }

 private:
  c10::intrusive_ptr<c10d::ProcessGroupGloo> group_;
  c10::intrusive_ptr<c10d::Store> store_;
  int rank_, world_;
};

}  // namespace

std::unique_ptr<ProcessGroup> ProcessGroup::join(const DistributedEnv& env, std::chrono::milliseconds timeout) {
  const std::string where = env.master_addr + ":" + std::to_string(env.master_port);
  try {
    c10d::TCPStoreOptions store_options;
    store_options.port = static_cast<std::uint16_t>(env.master_port);
    store_options.isServer = env.rank == 0;
    store_options.numWorkers = env.world_size;
    store_options.timeout = timeout;
    auto store = c10::make_intrusive<c10d::TCPStore>(env.master_addr, store_options);
    auto options = c10d::ProcessGroupGloo::Options::create();
    options->timeout = timeout;
    if (const char* interface = std::getenv("GLOO_SOCKET_IFNAME"); interface && *interface) {
      options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(interface));
    } else if (env.master_addr == "127.0.0.1" || env.master_addr == "localhost") {
      options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
    } else {
      options->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
    }
    auto group = c10::make_intrusive<c10d::ProcessGroupGloo>(store, env.rank, env.world_size, options);
    return std::make_unique<GlooGroup>(group, store, env.rank, env.world_size);
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
