// The inversion inspector's (the GUI's Invert tab) results as one JSON file: the settings and
// inputs, per model its checkpoint, whether it is the untrained twin, and every (layer, input)
// result with the field names of `mixerlab invert --json` (inversion_json.h, the one owner of those
// names), and the last over-training grid with every cell's results. Plain data, Qt-free.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/analysis/inversion.h"
#include "core/analysis/inversion_over_training.h"

namespace mixerlab {

struct InversionReportModel {
  std::string label;  // as the panel names it ("mixer · step 300")
  std::string checkpoint;
  bool untrained = false;
  std::string architecture;
  std::vector<int64_t> layers;  // as requested
  std::vector<InversionResult> results;
  std::string error;  // failed or skipped
};

struct OverTrainingReport {
  std::string run;
  std::vector<std::string> texts;
  InversionOverTraining grid;
};

struct InversionReport {
  std::vector<std::string> texts;
  InversionSettings settings;
  std::vector<InversionReportModel> models;
  std::optional<InversionSettings> over_training_settings;
  std::optional<OverTrainingReport> over_training;
};

nlohmann::json inversionReportJson(const InversionReport& report);
// Writes atomically; throws MixerLabError naming the file.
void saveInversionReport(const InversionReport& report, const std::filesystem::path& json_path);

}  // namespace mixerlab
