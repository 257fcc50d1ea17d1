// retrieval_run.json: what a retrieval-model training run (docs/retrieval.md) records about itself, so the
// workbench can show it in the run list and plot like any run (core/analysis/retrieval/
// retrieval_run.h writes it: once at start without epochs, again at the end with them). A run
// directory holding this file instead of run.json is a retrieval run. Torch-free, for the GUI.
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace mixerlab {

struct RetrievalRunRecord {
  std::string data;             // the dataset folder (absolute)
  std::string embedding_model;  // its model label, e.g. "mixer/step-00000300"
  int64_t context = 0, layers = 0, width = 0, batch_size = 0, epochs_planned = 0;
  double learning_rate = 0;
  int64_t warmup_steps = 0;
  double weight_decay = 0, grad_clip_norm = 0;
  bool with_replacement = false;
  double chance_top1 = 0;
  std::string device = "cpu";
  nlohmann::json epochs = nlohmann::json::array();  // {epoch, step, train_loss, eval_loss, top1, top5}

  // "retrieval mixer c=32 on mixer/step-00000300": the run list's architecture column.
  std::string describe() const;
  nlohmann::json toJson() const;  // with "kind": "retrieval"
  static RetrievalRunRecord fromJson(const nlohmann::json& j);
};

std::filesystem::path retrievalRunFile(const std::filesystem::path& run_dir);  // <run>/retrieval_run.json
void writeRetrievalRunRecord(const std::filesystem::path& run_dir, const RetrievalRunRecord& record);  // atomic
// nullopt when the folder has no readable retrieval_run.json.
std::optional<RetrievalRunRecord> tryReadRetrievalRunRecord(const std::filesystem::path& run_dir);

}  // namespace mixerlab
