// Run status record (see run_status.h).
#include "core/runs/run_status.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>

#include <nlohmann/json.hpp>

#include "core/runs/run_directory.h"
#include "core/util/atomic_file.h"
#include "core/util/enum_names.h"
#include "core/util/error.h"
#include "core/util/no_follow.h"
#include "core/util/subprocess.h"

namespace mixerlab {

namespace {
constexpr EnumName<RunState> kRunStateNames[] = {{RunState::Pending, "pending"},
                                                 {RunState::Running, "running"},
                                                 {RunState::Finished, "finished"},
                                                 {RunState::Failed, "failed"},
                                                 {RunState::Stopped, "stopped"}};
}  // namespace

std::string runStateName(RunState s) { return enumName(kRunStateNames, s, "pending"); }

RunState parseRunState(const std::string& name) {
  return enumFromName(kRunStateNames, name).value_or(RunState::Pending);
}

std::string hostName() {
  char buf[256] = {0};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

std::string utcTimestamp() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

RunStatus RunStatus::resolvedForReader() const {
  RunStatus s = *this;
  if (state == RunState::Running && pid > 0 && host == hostName()) {
    if (!processAlive(pid)) {
      s.state = RunState::Stopped;
      s.reason = "process ended without a final status (killed?); resume it to continue from the last checkpoint";
    }
  }
  return s;
}

namespace {
std::string statusJson(const RunStatus& status) {
  const nlohmann::json j = {{"state", runStateName(status.state)},
                            {"reason", status.reason},
                            {"step", status.step},
                            {"tokens", status.tokens},
                            {"pid", status.pid},
                            {"host", status.host},
                            {"updated_at", status.updated_at.empty() ? utcTimestamp() : status.updated_at}};
  // A reason cut inside a UTF-8 character (overwriteRunStatusInPlace) is written with U+FFFD, not refused.
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

bool isFinalState(RunState state) {
  return state == RunState::Finished || state == RunState::Failed || state == RunState::Stopped;
}

std::string errnoText(int err) { return err == ENOSPC ? "the disk is full" : std::strerror(err); }
}  // namespace

void writeRunStatus(const std::filesystem::path& run_dir, const RunStatus& status) {
  writeFileAtomic(RunPaths{run_dir}.status(), statusJson(status));
}

void overwriteRunStatusInPlace(const std::filesystem::path& run_dir, const RunStatus& status) {
  const std::filesystem::path path = RunPaths{run_dir}.status();
  std::error_code ignored;
  const bool existed = std::filesystem::exists(path, ignored);
  const int fd = openNoFollow(path, O_WRONLY | O_CREAT);
  if (fd < 0) {
    throw MixerLabError("cannot rewrite " + path.string() + ": " + errnoText(errno), "free disk space");
  }
  struct stat info {};
  ::fstat(fd, &info);
  // What the file can hold without a new block: its size, or its blocks' bytes when more.
  const size_t room = static_cast<size_t>(
      std::max<int64_t>(static_cast<int64_t>(info.st_size), static_cast<int64_t>(info.st_blocks) * 512));
  RunStatus fitted = status;
  if (fitted.updated_at.empty()) fitted.updated_at = utcTimestamp();
  std::string text = statusJson(fitted);
  while (text.size() > room && !fitted.reason.empty()) {
    const size_t excess = text.size() - room + 3;  // + the "..." that marks the cut
    fitted.reason.resize(excess >= fitted.reason.size() ? 0 : fitted.reason.size() - excess);
    if (!fitted.reason.empty()) fitted.reason += "...";
    text = statusJson(fitted);
  }
  size_t written = 0;
  int err = 0;
  while (written < text.size() && err == 0) {
    const ssize_t n = ::pwrite(fd, text.data() + written, text.size() - written, static_cast<off_t>(written));
    if (n > 0) {
      written += static_cast<size_t>(n);
    } else if (n == 0 || errno != EINTR) {
      err = n == 0 ? ENOSPC : errno;
    }
  }
  if (err == 0 && ::ftruncate(fd, static_cast<off_t>(text.size())) != 0) err = errno;
  if (err == 0 && ::fsync(fd) != 0) err = errno;
  ::close(fd);
  if (err != 0) {
    // A status.json this call created and could not fill would read as an empty, pending run.
    if (!existed) ::unlink(path.c_str());
    throw MixerLabError("cannot rewrite " + path.string() + ": " + errnoText(err), "free disk space");
  }
}

RunStatusRecorder::RunStatusRecorder(std::filesystem::path run_dir) : run_dir_(std::move(run_dir)) {
  status_.pid = ::getpid();
  status_.host = hostName();
}

void RunStatusRecorder::reserveSpaceForFinalStatus() {
  reserve_.reset();
  reserve_ = std::make_unique<SpaceReserve>(run_dir_ / ".final-status-reserve", SpaceReserve::kRunReserveBytes);
}

void RunStatusRecorder::set(RunState state, const std::string& reason, int64_t step, int64_t tokens) {
  status_.state = state;
  status_.reason = reason;
  status_.step = step;
  status_.tokens = tokens;
  status_.updated_at.clear();
  if (!isFinalState(state)) {
    writeRunStatus(run_dir_, status_);
    return;
  }
  // The run's last words: the space set aside for them goes back to the disk first.
  if (reserve_) reserve_->release();
  try {
    writeRunStatus(run_dir_, status_);
  } catch (const MixerLabError& atomic_write_error) {
    try {
      overwriteRunStatusInPlace(run_dir_, status_);
    } catch (const MixerLabError&) {
      throw atomic_write_error;
    }
  }
}

std::optional<RunStatus> readRunStatus(const std::filesystem::path& run_dir) {
  return readRunStatusFile(RunPaths{run_dir}.status());
}

std::optional<RunStatus> readRunStatusFile(const std::filesystem::path& file) {
  try {
    auto j = nlohmann::json::parse(readFile(file));
    RunStatus s;
    s.state = parseRunState(j.value("state", "pending"));
    s.reason = j.value("reason", "");
    s.step = j.value("step", int64_t{0});
    s.tokens = j.value("tokens", int64_t{0});
    s.pid = j.value("pid", int64_t{0});
    s.host = j.value("host", "");
    s.updated_at = j.value("updated_at", "");
    return s;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace mixerlab
