// Rank processes of one node (see rank_launcher.h), started through core/util/subprocess.h.
#include "core/distributed/rank_launcher.h"

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>

#include "core/util/error.h"
#include "core/util/subprocess.h"

namespace mixerlab {

namespace {
std::atomic<int> g_forward_signal{0};
void rememberSignal(int signal) { g_forward_signal.store(signal); }

// SIGINT and SIGTERM are remembered (and passed on to the ranks) while the launcher runs.
class ForwardStopSignals {
 public:
  ForwardStopSignals() {
    g_forward_signal.store(0);
    struct sigaction forward {};
    forward.sa_handler = rememberSignal;
    sigemptyset(&forward.sa_mask);
    sigaction(SIGINT, &forward, &old_int_);
    sigaction(SIGTERM, &forward, &old_term_);
  }
  ~ForwardStopSignals() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }
  ForwardStopSignals(const ForwardStopSignals&) = delete;
  ForwardStopSignals& operator=(const ForwardStopSignals&) = delete;

 private:
  using SignalAction = struct sigaction;
  SignalAction old_int_{}, old_term_{};
};

// The environment of one rank: the torchrun variables.
std::vector<std::pair<std::string, std::string>> rankEnvironment(const LaunchPlan& plan, int local, int world) {
  return {{"RANK", std::to_string(plan.node_rank * plan.nproc + local)},
          {"WORLD_SIZE", std::to_string(world)},
          {"LOCAL_RANK", std::to_string(local)},
          {"LOCAL_WORLD_SIZE", std::to_string(plan.nproc)},
          {"MASTER_ADDR", plan.master_addr},
          {"MASTER_PORT", std::to_string(plan.master_port)}};
}

// SIGTERM to every rank still running; SIGKILL to those that have not ended after `grace_s`.
void stopRanks(std::vector<Subprocess>& ranks, double grace_s) {
  for (Subprocess& rank : ranks) rank.sendSignal(SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(grace_s);
  for (Subprocess& rank : ranks) {
    while (!rank.tryWait() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    rank.sendSignal(SIGKILL);
    rank.wait();
  }
}
}  // namespace

int freeTcpPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw MixerLabError(std::string("cannot open a socket: ") + std::strerror(errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    ::close(fd);
    throw MixerLabError(std::string("cannot find a free port: ") + std::strerror(errno), "pass --master HOST:PORT");
  }
  ::close(fd);
  return ntohs(addr.sin_port);
}

LaunchResult launchRanks(LaunchPlan plan) {
  if (plan.nproc < 1 || plan.nnodes < 1 || plan.node_rank < 0 || plan.node_rank >= plan.nnodes) {
    throw MixerLabError("launch: --nproc must be >= 1 and --node-rank in [0, --nnodes)");
  }
  if (plan.master_port == 0) {
    if (plan.nnodes > 1) {
      throw MixerLabError("launch: a job on " + std::to_string(plan.nnodes) + " nodes needs --master HOST:PORT",
                          "give every node the same --master (node 0's address and a free port)");
    }
    plan.master_port = freeTcpPort();
  }
  const int world = plan.nnodes * plan.nproc;
  const ForwardStopSignals forwarding;
  std::vector<Subprocess> ranks;
  ranks.reserve(plan.nproc);
  for (int local = 0; local < plan.nproc; ++local) {
    SubprocessSpec spec;
    spec.program = plan.program;
    spec.args = plan.args;
    spec.env = rankEnvironment(plan, local, world);
    spec.default_stop_signals = true;  // a rank stops on its own signals, not the launcher's forwarding
    try {
      ranks.push_back(spawn(spec));
    } catch (const MixerLabError& e) {
      stopRanks(ranks, plan.grace_s);  // none is left waiting for a peer that never comes
      throw MixerLabError("launch: cannot start rank " + std::to_string(plan.node_rank * plan.nproc + local) + " of " +
                              std::to_string(world) + ": " + e.problem(),
                          e.fix());
    }
  }

  LaunchResult result;
  int running = plan.nproc;
  bool stopping = false;
  auto stop_started = std::chrono::steady_clock::now();
  auto signalAll = [&](int sig) {
    for (Subprocess& rank : ranks) rank.sendSignal(sig);
  };
  while (running > 0) {
    if (const int sig = g_forward_signal.exchange(0); sig != 0) signalAll(sig);  // stop together
    bool any_ended = false;
    for (int local = 0; local < plan.nproc; ++local) {
      Subprocess& rank_process = ranks[local];
      if (rank_process.finished()) continue;
      const std::optional<ChildExit> exit = rank_process.tryWait();
      if (!exit) continue;
      any_ended = true;
      --running;
      const bool failed = !exit->succeeded();
      if (failed && result.message.empty()) {
        const int rank = plan.node_rank * plan.nproc + local;
        result.exit_code = exit->shellCode();
        result.message = "rank " + std::to_string(rank) + " of " + std::to_string(world) + " (pid " +
                         std::to_string(rank_process.pid()) + ") " + describeExit(*exit) +
                         "; the other ranks were stopped. The last checkpoint is kept: add --resume to "
                         "continue, with any number of ranks";
      }
      if (failed && !stopping) {
        stopping = true;
        stop_started = std::chrono::steady_clock::now();
        signalAll(SIGTERM);
      }
    }
    if (any_ended) continue;
    if (stopping && std::chrono::steady_clock::now() - stop_started > std::chrono::duration<double>(plan.grace_s)) {
      signalAll(SIGKILL);  // a rank stuck in a collective with a dead peer
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return result;
}

}  // namespace mixerlab
