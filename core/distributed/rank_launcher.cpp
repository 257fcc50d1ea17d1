// Rank processes of one node (see rank_launcher.h).
#include "core/distributed/rank_launcher.h"

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>

#include "core/util/error.h"

namespace mixerlab {

namespace {
std::atomic<int> g_forward_signal{0};
void rememberSignal(int signal) { g_forward_signal.store(signal); }

std::string describeExit(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    return "was killed by signal " + std::to_string(sig) + " (" + std::string(strsignal(sig)) + ")";
  }
  return "exited with code " + std::to_string(WEXITSTATUS(status));
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
  std::vector<pid_t> pids(plan.nproc, -1);
  g_forward_signal.store(0);
  struct sigaction forward {}, old_int {}, old_term {};
  forward.sa_handler = rememberSignal;
  sigemptyset(&forward.sa_mask);
  sigaction(SIGINT, &forward, &old_int);
  sigaction(SIGTERM, &forward, &old_term);
  for (int local = 0; local < plan.nproc; ++local) {
    const int rank = plan.node_rank * plan.nproc + local;
    const pid_t pid = ::fork();
    if (pid < 0) throw MixerLabError(std::string("launch: cannot start a rank: ") + std::strerror(errno));
    if (pid == 0) {
      signal(SIGINT, SIG_DFL);
      signal(SIGTERM, SIG_DFL);
      setenv("RANK", std::to_string(rank).c_str(), 1);
      setenv("WORLD_SIZE", std::to_string(world).c_str(), 1);
      setenv("LOCAL_RANK", std::to_string(local).c_str(), 1);
      setenv("LOCAL_WORLD_SIZE", std::to_string(plan.nproc).c_str(), 1);
      setenv("MASTER_ADDR", plan.master_addr.c_str(), 1);
      setenv("MASTER_PORT", std::to_string(plan.master_port).c_str(), 1);
      std::vector<char*> argv;
      argv.push_back(const_cast<char*>(plan.program.c_str()));
      for (auto& a : plan.args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      ::execv(plan.program.c_str(), argv.data());
      std::fprintf(stderr, "launch: cannot run %s: %s\n", plan.program.c_str(), std::strerror(errno));
      ::_exit(127);
    }
    pids[local] = pid;
  }

  LaunchResult result;
  int running = plan.nproc;
  bool stopping = false;
  auto stop_started = std::chrono::steady_clock::now();
  auto signalAll = [&](int sig) {
    for (pid_t pid : pids) {
      if (pid > 0) ::kill(pid, sig);
    }
  };
  while (running > 0) {
    if (const int sig = g_forward_signal.exchange(0); sig != 0) signalAll(sig);  // stop together
    int status = 0;
    const pid_t done = ::waitpid(-1, &status, WNOHANG);
    if (done > 0) {
      for (int local = 0; local < plan.nproc; ++local) {
        if (pids[local] != done) continue;
        pids[local] = -1;
        --running;
        const bool failed = !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        if (failed && result.message.empty()) {
          const int rank = plan.node_rank * plan.nproc + local;
          result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
          result.message = "rank " + std::to_string(rank) + " of " + std::to_string(world) + " (pid " +
                           std::to_string(done) + ") " + describeExit(status) +
                           "; the other ranks were stopped. The last checkpoint is kept: add --resume to "
                           "continue, with any number of ranks";
        }
        if (failed && !stopping) {
          stopping = true;
          stop_started = std::chrono::steady_clock::now();
          signalAll(SIGTERM);
        }
      }
      continue;
    }
    if (stopping && std::chrono::steady_clock::now() - stop_started > std::chrono::duration<double>(plan.grace_s)) {
      signalAll(SIGKILL);  // a rank stuck in a collective with a dead peer
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  return result;
}

}  // namespace mixerlab
