// Renders a reproduction's report.json as one self-contained HTML page (inline SVG figures, inline
// CSS, no scripts or external files), plus the figures as standalone SVG texts.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace mixerlab {

struct ReportPage {
  std::string html;
  std::vector<std::pair<std::string, std::string>> figures;  // (file stem, SVG text)
};

ReportPage renderReportPage(const nlohmann::json& report);

}  // namespace mixerlab
