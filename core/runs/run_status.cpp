// Run status record (see run_status.h).
#include "core/runs/run_status.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>

#include <nlohmann/json.hpp>

#include "core/runs/run_directory.h"
#include "core/util/atomic_file.h"
#include "core/util/enum_names.h"

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
    const bool alive = ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
    if (!alive) {
      s.state = RunState::Stopped;
      s.reason = "process ended without a final status (killed?); resume it to continue from the last checkpoint";
    }
  }
  return s;
}

void writeRunStatus(const std::filesystem::path& run_dir, const RunStatus& status) {
  nlohmann::json j = {{"state", runStateName(status.state)},
                      {"reason", status.reason},
                      {"step", status.step},
                      {"tokens", status.tokens},
                      {"pid", status.pid},
                      {"host", status.host},
                      {"updated_at", status.updated_at.empty() ? utcTimestamp() : status.updated_at}};
  writeFileAtomic(RunPaths{run_dir}.status(), j.dump(2) + "\n");
}

RunStatusRecorder::RunStatusRecorder(std::filesystem::path run_dir) : run_dir_(std::move(run_dir)) {
  status_.pid = ::getpid();
  status_.host = hostName();
}

void RunStatusRecorder::set(RunState state, const std::string& reason, int64_t step, int64_t tokens) {
  status_.state = state;
  status_.reason = reason;
  status_.step = step;
  status_.tokens = tokens;
  status_.updated_at.clear();
  writeRunStatus(run_dir_, status_);
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
