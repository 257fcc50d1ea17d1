// Saving the inversion inspector's results (see inversion_report.h).
#include "core/analysis/inversion_report.h"

#include "core/analysis/inversion_json.h"
#include "core/util/atomic_file.h"

namespace mixerlab {

namespace {

nlohmann::json inversionReportSettingsJson(const InversionSettings& s) {
  nlohmann::json j = inversionSettingsJson(s);  // the CLI's keys, plus what the GUI also chose
  j["top_k"] = s.top_k;
  j["device"] = s.device;
  return j;
}

}  // namespace

nlohmann::json inversionReportJson(const InversionReport& report) {
  nlohmann::json models = nlohmann::json::array();
  for (const InversionReportModel& m : report.models) {
    nlohmann::json results = nlohmann::json::array();
    for (const InversionResult& r : m.results) results.push_back(inversionResultJson(r, report.settings.top_k));
    nlohmann::json model = {{"label", m.label},         {"checkpoint", m.checkpoint},
                            {"untrained", m.untrained}, {"architecture", m.architecture},
                            {"layers", m.layers},       {"results", results}};
    if (!m.error.empty()) model["error"] = m.error;
    models.push_back(model);
  }
  nlohmann::json out = {
      {"texts", report.texts}, {"settings", inversionReportSettingsJson(report.settings)}, {"models", models}};
  if (report.over_training) {
    const OverTrainingReport& o = *report.over_training;
    nlohmann::json grid = overTrainingJson(o.grid, o.texts.size());
    nlohmann::json cells = nlohmann::json::array();  // [column][layer * inputs + input]
    const int64_t top_k = report.over_training_settings ? report.over_training_settings->top_k : report.settings.top_k;
    for (const auto& column : o.grid.results) {
      nlohmann::json list = nlohmann::json::array();
      for (const InversionResult& r : column) list.push_back(inversionResultJson(r, top_k));
      cells.push_back(list);
    }
    grid["run"] = o.run;
    grid["texts"] = o.texts;
    grid["cancelled"] = o.grid.cancelled;
    grid["results"] = cells;
    if (report.over_training_settings) grid["settings"] = inversionReportSettingsJson(*report.over_training_settings);
    out["over_training"] = grid;
  }
  return out;
}

void saveInversionReport(const InversionReport& report, const std::filesystem::path& json_path) {
  writeFileAtomic(json_path, inversionReportJson(report).dump(2) + "\n");
}

}  // namespace mixerlab
