// The reproduction's report, built only from what is on disk in its folder: plan.json, the run
// directories (run.json, metrics.jsonl, status.json, retrieval_run.json) and results/*.json. So the
// report can be rebuilt at any time (`mixerlab reproduce --report-only`), and a test builds one from
// fixture runs. report.json holds the claims with their verdicts, every run (config, losses,
// compute), the seed groups, the loss-vs-compute frontier and power-law fits, hardware, versions
// and timing; report.html shows the same with inline SVG figures (also written to figures/).
#pragma once
#include <filesystem>

#include <nlohmann/json.hpp>

namespace mixerlab {

nlohmann::json buildReproduceReport(const std::filesystem::path& out_dir);

struct ReportFiles {
  std::filesystem::path json, html;
};
// Builds and writes report.json, report.html and figures/*.svg (each atomically).
ReportFiles writeReproduceReport(const std::filesystem::path& out_dir);

}  // namespace mixerlab
