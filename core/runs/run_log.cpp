// Run log backed by an unregistered spdlog file logger (see run_log.h).
#include "core/runs/run_log.h"

#include <cstdio>

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/spdlog.h>

#include "core/util/no_follow.h"

namespace mixerlab {

RunLog::RunLog(const std::filesystem::path& path, std::function<void(const std::string&)> forward)
    : forward_(std::move(forward)) {
  refuseSymlink(path);  // spdlog's file sink would append to the link's target
  auto sink = std::make_shared<spdlog::sinks::basic_file_sink_mt>(path.string(), /*truncate=*/false);
  logger_ = std::make_shared<spdlog::logger>("run", sink);
  logger_->set_pattern("%Y-%m-%d %H:%M:%S %l %v");
  // spdlog's own handler prints "[*** LOG ERROR #0001 ***]" for every failed write (a full disk):
  // one readable warning instead; the lines still reach `forward`.
  logger_->set_error_handler([path, warned = std::make_shared<bool>(false)](const std::string& problem) {
    if (*warned) return;
    *warned = true;
    std::fprintf(stderr, "warning: cannot write the run log %s (%s); its lines are printed but not kept\n",
                 path.c_str(), problem.c_str());
  });
  logger_->flush_on(spdlog::level::info);
}

RunLog::~RunLog() { logger_->flush(); }

void RunLog::info(const std::string& line) {
  logger_->info(line);
  if (forward_) forward_(line);
}

void RunLog::warn(const std::string& line) {
  logger_->warn(line);
  if (forward_) forward_("warning: " + line);
}

void RunLog::error(const std::string& line) {
  logger_->error(line);
  if (forward_) forward_("error: " + line);
}

void RunLog::errorNotForwarded(const std::string& line) { logger_->error(line); }

}  // namespace mixerlab
