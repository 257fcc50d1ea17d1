// Rank processes of one node (see rank_launcher.h), started through core/util/subprocess.h.
#include "core/distributed/rank_launcher.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <thread>

#include "core/distributed/rank_heartbeat.h"
#include "core/distributed/rank_watchdog.h"
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
          {"MASTER_PORT", std::to_string(plan.master_port)},
          {kBackendVariable, plan.backend}};
}

// The launcher's ends of the ranks' heartbeat sockets (rank_heartbeat.h), closed with it.
class HeartbeatSockets {
 public:
  HeartbeatSockets() = default;
  HeartbeatSockets(const HeartbeatSockets&) = delete;
  HeartbeatSockets& operator=(const HeartbeatSockets&) = delete;
  ~HeartbeatSockets() {
    for (const int fd : launcher_ends_) ::close(fd);
  }

  // A new socket pair for the next rank: the launcher keeps one end (non-blocking), the rank's end
  // is returned (close-on-exec here, kept open in the rank by SubprocessSpec::inherited_fds); the
  // caller closes it once the rank has started. Both ends lie above the standard streams.
  int addRank(const std::string& rank_name) {
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, fds) != 0) {
      throw MixerLabError("launch: cannot make the heartbeat socket of " + rank_name + ": " + std::strerror(errno),
                          "too many open files or no memory: end some processes and try again");
    }
    for (int& fd : fds) {
      if (fd <= STDERR_FILENO) {
        const int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
        ::close(fd);
        fd = moved;
      }
    }
    if (fds[0] < 0 || fds[1] < 0) {
      if (fds[0] >= 0) ::close(fds[0]);
      if (fds[1] >= 0) ::close(fds[1]);
      throw MixerLabError("launch: cannot make the heartbeat socket of " + rank_name + ": " + std::strerror(errno),
                          "too many open files: raise the limit (ulimit -n)");
    }
    ::fcntl(fds[0], F_SETFL, ::fcntl(fds[0], F_GETFL) | O_NONBLOCK);
    launcher_ends_.push_back(fds[0]);
    return fds[1];
  }

  // Waits up to wait_ms for heartbeats, then hands each waiting datagram to on_message(rank, text).
  template <class OnMessage>
  void receive(int wait_ms, OnMessage on_message) {
    std::vector<pollfd> polled;
    for (const int fd : launcher_ends_) polled.push_back({fd, POLLIN, 0});
    if (::poll(polled.data(), polled.size(), wait_ms) <= 0) return;  // nothing, or a signal (EINTR)
    char buffer[8192];
    for (size_t rank = 0; rank < polled.size(); ++rank) {
      if (!(polled[rank].revents & POLLIN)) continue;
      ssize_t n = 0;
      while ((n = ::recv(polled[rank].fd, buffer, sizeof buffer, MSG_DONTWAIT)) >= 0) {
        on_message(static_cast<int>(rank), std::string(buffer, static_cast<size_t>(n)));
      }
    }
  }

 private:
  std::vector<int> launcher_ends_;
};

std::string rankName(int rank, int world) { return "rank " + std::to_string(rank) + " of " + std::to_string(world); }

std::string wholeSeconds(double seconds) { return std::to_string(static_cast<int64_t>(std::llround(seconds))); }

// "rank 1 of 2 (pid 4242) made no progress for 5 s and sent no heartbeat: ..."
std::string stallMessage(const StalledRanks& stalled, const LaunchPlan& plan, int world,
                         const std::vector<Subprocess>& ranks) {
  std::string who;
  for (size_t i = 0; i < stalled.ranks.size(); ++i) {
    const int local = stalled.ranks[i];
    if (i > 0) who += i + 1 == stalled.ranks.size() ? " and " : ", ";
    who += rankName(plan.node_rank * plan.nproc + local, world) + " (pid " +
           std::to_string(ranks[static_cast<size_t>(local)].pid()) + ")";
  }
  const std::string what = stalled.silent ? " and sent no heartbeat: stopped or frozen" : ", still running";
  return who + " made no progress for " + wholeSeconds(stalled.stalled_s) + " s" + what + " at step " +
         std::to_string(stalled.step) + "; every rank was killed (--stall-timeout-s " +
         wholeSeconds(plan.stall_timeout_s) +
         ": raise it if a step, an evaluation or a checkpoint write may take "
         "longer)";
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

int maxLocalRanks() {
  const long cores = ::sysconf(_SC_NPROCESSORS_ONLN);
  return kMaxRanksPerCore * static_cast<int>(std::max(1L, cores));
}

LaunchResult launchRanks(LaunchPlan plan) {
  if (plan.nproc < 1 || plan.nnodes < 1 || plan.node_rank < 0 || plan.node_rank >= plan.nnodes) {
    throw MixerLabError("launch: --nproc must be >= 1 and --node-rank in [0, --nnodes)");
  }
  if (plan.nproc > maxLocalRanks()) {
    throw MixerLabError("launch: --nproc " + std::to_string(plan.nproc) + " is more ranks than this machine can run: " +
                            std::to_string(::sysconf(_SC_NPROCESSORS_ONLN)) + " CPU cores, at most " +
                            std::to_string(maxLocalRanks()) + " ranks (" + std::to_string(kMaxRanksPerCore) +
                            " per core); nothing was started",
                        "use --nproc " + std::to_string(maxLocalRanks()) +
                            " or fewer (one per GPU on a GPU node), or spread the job over machines with --nnodes");
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
  HeartbeatSockets heartbeats;
  std::vector<Subprocess> ranks;
  ranks.reserve(plan.nproc);
  for (int local = 0; local < plan.nproc; ++local) {
    const std::string name = rankName(plan.node_rank * plan.nproc + local, world);
    SubprocessSpec spec;
    spec.program = plan.program;
    spec.args = plan.args;
    spec.env = rankEnvironment(plan, local, world);
    spec.default_stop_signals = true;    // a rank stops on its own signals, not the launcher's forwarding
    spec.parent_death_signal = SIGKILL;  // no rank outlives its launcher, even one killed by SIGKILL
    try {
      const int rank_end = heartbeats.addRank(name);
      spec.inherited_fds = {rank_end};
      spec.env.emplace_back(kHeartbeatVariable, heartbeatVariableValue(rank_end, static_cast<long>(::getpid())));
      struct CloseRankEnd {
        int fd;
        ~CloseRankEnd() { ::close(fd); }
      } close_rank_end{rank_end};  // the rank holds its own copy
      ranks.push_back(spawn(spec));
    } catch (const MixerLabError& e) {
      stopRanks(ranks, plan.grace_s);  // none is left waiting for a peer that never comes
      throw MixerLabError("launch: cannot start " + name + ": " + e.problem(), e.fix());
    }
    // A stop asked for while the ranks start: the started ones stop, no more start.
    if (const int sig = g_forward_signal.load(); sig != 0 && local + 1 < plan.nproc) {
      stopRanks(ranks, plan.grace_s);
      LaunchResult stopped;
      stopped.exit_code = 128 + sig;
      stopped.signal = sig;
      stopped.message = "stopped by signal " + std::to_string(sig) + " while starting the ranks (" +
                        std::to_string(local + 1) + " of " + std::to_string(plan.nproc) +
                        " had started; they were stopped)";
      return stopped;
    }
  }

  LaunchResult result;
  RankWatchdog watchdog(plan.nproc, plan.stall_timeout_s);
  int running = plan.nproc;
  bool stopping = false;
  auto stop_started = std::chrono::steady_clock::now();
  auto signalAll = [&](int sig) {
    for (Subprocess& rank : ranks) rank.sendSignal(sig);
  };
  auto onHeartbeat = [&](int local, const std::string& datagram) {
    const std::optional<HeartbeatMessage> message = parseHeartbeat(datagram);
    if (!message) return;
    if (message->step && !ranks[local].finished()) {
      watchdog.onStep(local, *message->step, std::chrono::steady_clock::now());
    }
    if (!message->run_folder.empty() && plan.node_rank * plan.nproc + local == 0) {
      result.run_folder = message->run_folder;
    }
  };
  auto startStopping = [&](int sig) {
    stopping = true;
    stop_started = std::chrono::steady_clock::now();
    signalAll(sig);
  };
  while (running > 0) {
    if (const int sig = g_forward_signal.exchange(0); sig != 0) signalAll(sig);  // stop together
    // The ranks that ended since the last look. The first failure names the job's cause; of several
    // seen at once, one killed by a signal goes first (its peers then exit with a socket error).
    std::optional<int> first_failed;
    for (int local = 0; local < plan.nproc; ++local) {
      Subprocess& rank_process = ranks[local];
      if (rank_process.finished()) continue;
      const std::optional<ChildExit> exit = rank_process.tryWait();
      if (!exit) continue;
      --running;
      watchdog.onEnded(local);
      if (exit->succeeded()) continue;
      if (!first_failed || (exit->signal != 0 && ranks[*first_failed].wait().signal == 0)) first_failed = local;
    }
    if (first_failed) {
      if (result.message.empty()) {
        Subprocess& failed = ranks[*first_failed];
        result.exit_code = failed.wait().shellCode();
        result.signal = failed.wait().signal;
        result.message = rankName(plan.node_rank * plan.nproc + *first_failed, world) + " (pid " +
                         std::to_string(failed.pid()) + ") " + describeExit(failed.wait()) +
                         "; the other ranks were stopped";
      }
      if (!stopping) startStopping(SIGTERM);
      continue;
    }
    const auto now = std::chrono::steady_clock::now();
    if (!stopping) {
      if (const std::optional<StalledRanks> stalled = watchdog.check(now)) {
        result.exit_code = 1;
        result.stalled = true;
        result.message = stallMessage(*stalled, plan, world, ranks);
        startStopping(SIGKILL);  // a stalled rank cannot stop by itself, nor can the ranks waiting for it
      }
    } else if (now - stop_started > std::chrono::duration<double>(plan.grace_s)) {
      signalAll(SIGKILL);  // a rank stuck in a collective with a dead peer
    }
    heartbeats.receive(20, onHeartbeat);
  }
  heartbeats.receive(0, onHeartbeat);  // what an ended rank sent last (rank 0's run folder)
  return result;
}

}  // namespace mixerlab
