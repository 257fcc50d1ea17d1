// The human-readable log of a run (log.txt): timestamped lines, flushed as they are written, and
// forwarded to an optional callback (the CLI prints them, the GUI shows them).
#pragma once
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

namespace spdlog {
class logger;
}

namespace mixerlab {

class RunLog {
 public:
  RunLog(const std::filesystem::path& path, std::function<void(const std::string&)> forward);
  ~RunLog();
  void info(const std::string& line);
  void warn(const std::string& line);
  void error(const std::string& line);
  // To the file only: for an error the caller reports itself (an exception it rethrows), so the
  // user does not read it twice.
  void errorNotForwarded(const std::string& line);
  void operator()(const std::string& line) { info(line); }

 private:
  std::shared_ptr<spdlog::logger> logger_;
  std::function<void(const std::string&)> forward_;
};

}  // namespace mixerlab
