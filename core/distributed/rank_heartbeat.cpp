// The rank's heartbeat thread and the datagrams it sends to its launcher (see rank_heartbeat.h).
#include "core/distributed/rank_heartbeat.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>

namespace mixerlab {

namespace {
constexpr const char kStepPrefix[] = "step ";
constexpr const char kRunPrefix[] = "run ";

// The socket named by the variable, or -1: only when this process's parent is the launcher that set
// it (a program a rank starts inherits the variable, not the socket) and the descriptor is a socket.
int launcherSocket() {
  const std::optional<std::string> variable =
      kernels::environmentValue(kernels::EnvironmentVariable::kLauncherHeartbeat);
  if (!variable) return -1;
  const char* value = variable->c_str();
  char* end = nullptr;
  errno = 0;
  const long fd = std::strtol(value, &end, 10);
  if (errno != 0 || end == value || *end != ':' || fd <= STDERR_FILENO || fd > (1L << 24)) return -1;
  const char* pid_text = end + 1;
  const long launcher_pid = std::strtol(pid_text, &end, 10);
  if (errno != 0 || end == pid_text || *end != '\0' || launcher_pid != static_cast<long>(::getppid())) return -1;
  struct stat info {};
  if (::fstat(static_cast<int>(fd), &info) != 0 || !S_ISSOCK(info.st_mode)) return -1;
  ::fcntl(static_cast<int>(fd), F_SETFD, FD_CLOEXEC);  // never passed on to a program the rank starts
  return static_cast<int>(fd);
}

// One per process: sends the step every kHeartbeatInterval from its own thread, started at the first
// step, until the process exits. A send never blocks and never raises SIGPIPE (a launcher that is
// gone or not reading loses the beat; its parent-death signal ends this rank anyway).
class HeartbeatSender {
 public:
  static HeartbeatSender& instance() {
    static HeartbeatSender sender;
    return sender;
  }
  HeartbeatSender(const HeartbeatSender&) = delete;
  HeartbeatSender& operator=(const HeartbeatSender&) = delete;
  ~HeartbeatSender() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

  void send(const std::string& text) const {
    if (fd_ >= 0) ::send(fd_, text.data(), text.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
  }

  void setStep(int64_t step) {
    if (fd_ < 0) return;
    step_.store(step);
    std::call_once(started_, [this] { thread_ = std::thread([this] { beat(); }); });
  }

 private:
  HeartbeatSender() = default;

  void beat() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stopping_) {
      send(kStepPrefix + std::to_string(step_.load()));
      wake_.wait_for(lock, kHeartbeatInterval, [this] { return stopping_; });
    }
  }

  const int fd_ = launcherSocket();
  std::atomic<int64_t> step_{0};
  std::once_flag started_;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
};
}  // namespace

void reportTrainingStep(int64_t step) { HeartbeatSender::instance().setStep(step); }

void reportRunFolder(const std::filesystem::path& run_dir) {
  std::error_code no_working_folder;
  const std::filesystem::path absolute = std::filesystem::absolute(run_dir, no_working_folder);
  HeartbeatSender::instance().send(kRunPrefix + (absolute.empty() ? run_dir : absolute).string());
}

std::optional<HeartbeatMessage> parseHeartbeat(const std::string& datagram) {
  HeartbeatMessage message;
  const std::string step_prefix = kStepPrefix, run_prefix = kRunPrefix;
  if (datagram.compare(0, step_prefix.size(), step_prefix) == 0) {
    const std::string number = datagram.substr(step_prefix.size());
    char* end = nullptr;
    errno = 0;
    const long long step = std::strtoll(number.c_str(), &end, 10);
    if (number.empty() || errno != 0 || *end != '\0') return std::nullopt;
    message.step = step;
    return message;
  }
  if (datagram.compare(0, run_prefix.size(), run_prefix) == 0 && datagram.size() > run_prefix.size()) {
    message.run_folder = datagram.substr(run_prefix.size());
    return message;
  }
  return std::nullopt;
}

std::string heartbeatVariableValue(int fd, long launcher_pid) {
  return std::to_string(fd) + ":" + std::to_string(launcher_pid);
}

}  // namespace mixerlab
