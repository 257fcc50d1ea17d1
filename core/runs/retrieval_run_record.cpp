// retrieval_run.json (see retrieval_run_record.h).
#include "core/runs/retrieval_run_record.h"

#include "core/util/atomic_file.h"

namespace mixerlab {
namespace fs = std::filesystem;

std::string RetrievalRunRecord::describe() const {
  return "retrieval mixer c=" + std::to_string(context) + " on " + (embedding_model.empty() ? "?" : embedding_model);
}

nlohmann::json RetrievalRunRecord::toJson() const {
  return {{"kind", "retrieval"},
          {"data", data},
          {"embedding_model", embedding_model},
          {"context", context},
          {"layers", layers},
          {"width", width},
          {"batch_size", batch_size},
          {"epochs_planned", epochs_planned},
          {"learning_rate", learning_rate},
          {"warmup_steps", warmup_steps},
          {"weight_decay", weight_decay},
          {"grad_clip_norm", grad_clip_norm},
          {"with_replacement", with_replacement},
          {"chance_top1", chance_top1},
          {"device", device},
          {"epochs", epochs}};
}

RetrievalRunRecord RetrievalRunRecord::fromJson(const nlohmann::json& j) {
  RetrievalRunRecord r;
  r.data = j.value("data", "");
  r.embedding_model = j.value("embedding_model", "");
  r.context = j.at("context").get<int64_t>();
  r.layers = j.at("layers").get<int64_t>();
  r.width = j.at("width").get<int64_t>();
  r.batch_size = j.value("batch_size", int64_t{0});
  r.epochs_planned = j.value("epochs_planned", int64_t{0});
  r.learning_rate = j.value("learning_rate", 0.0);
  r.warmup_steps = j.value("warmup_steps", int64_t{0});
  r.weight_decay = j.value("weight_decay", 0.0);
  r.grad_clip_norm = j.value("grad_clip_norm", 0.0);
  r.with_replacement = j.value("with_replacement", false);
  r.chance_top1 = j.value("chance_top1", 0.0);
  r.device = j.value("device", "cpu");
  r.epochs = j.value("epochs", nlohmann::json::array());
  return r;
}

fs::path retrievalRunFile(const fs::path& run_dir) { return run_dir / "retrieval_run.json"; }

void writeRetrievalRunRecord(const fs::path& run_dir, const RetrievalRunRecord& record) {
  writeFileAtomic(retrievalRunFile(run_dir), record.toJson().dump(2) + "\n");
}

std::optional<RetrievalRunRecord> tryReadRetrievalRunRecord(const fs::path& run_dir) {
  try {
    if (!fs::exists(retrievalRunFile(run_dir))) return std::nullopt;
    return RetrievalRunRecord::fromJson(nlohmann::json::parse(readFile(retrievalRunFile(run_dir))));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace mixerlab
