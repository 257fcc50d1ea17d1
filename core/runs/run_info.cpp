// run.json reading and writing (see run_info.h).
#include "core/runs/run_info.h"

#include <algorithm>

#include "core/models/model_registry.h"
#include "core/runs/run_directory.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"

namespace mixerlab {
namespace fs = std::filesystem;

namespace {

RunConfig runConfigFromJson(const nlohmann::json& j) {
  RunConfig run;
  run.name = j.value("name", "");
  run.model = ModelConfig::fromJson(j.at("model"));
  run.train = TrainConfig::fromJson(j.value("train", nlohmann::json::object()));
  return run;
}

// The analytic figures of runs whose run.json predates them; zero for an unknown architecture.
void fillMissingCost(RunInfo& info, bool need_parameters, bool need_flops) {
  if (!need_parameters && !need_flops) return;
  try {
    const ModelCost cost = estimateCost(info.run.model, std::max<int64_t>(info.run.train.batch_size, 1));
    if (need_parameters) info.parameters = cost.parameters;
    if (need_flops) info.training_flops_per_token = cost.training_flops_per_token;
  } catch (const std::exception&) {
  }
}

}  // namespace

std::string RunInfo::device() const {
  if (!environment.is_object()) return "";
  const auto it = environment.find("device");
  return it != environment.end() && it->is_string() ? it->get<std::string>() : "";
}

nlohmann::json RunInfo::configJson() const {
  return {{"model", run.model.toJson()},
          {"run", run.toJson()},
          {"project", project},
          {"project_file", project_file},
          {"tokenizer", tokenizer}};
}

nlohmann::json RunInfo::toJson() const {
  nlohmann::json j = configJson();
  j["environment"] = environment;
  j["seed"] = seed;
  j["threads"] = threads;
  j["parameters"] = parameters;
  j["training_flops_per_token"] = training_flops_per_token;
  if (forked_from) j["forked_from"] = {{"checkpoint", forked_from->checkpoint}, {"step", forked_from->step}};
  return j;
}

RunInfo RunInfo::fromJson(const nlohmann::json& j) {
  RunInfo info;
  try {
    info.run = runConfigFromJson(j.at("run"));
    info.project = j.value("project", nlohmann::json::object());
    info.project_file = j.value("project_file", "");
    info.tokenizer = j.value("tokenizer", "tokenizer.model");
    info.environment = j.value("environment", nlohmann::json::object());
    info.seed = j.value("seed", uint64_t{0});
    info.threads = j.value("threads", int64_t{0});
    info.parameters = j.value("parameters", int64_t{0});
    info.training_flops_per_token = j.value("training_flops_per_token", 0.0);
    if (j.contains("forked_from") && j.at("forked_from").is_object()) {
      const auto& f = j.at("forked_from");
      info.forked_from = ForkOrigin{f.value("checkpoint", ""), f.value("step", int64_t{0})};
    }
  } catch (const nlohmann::json::exception& e) {
    throw MixerLabError(std::string("run.json is malformed: ") + e.what(),
                        "restore it from a checkpoint's config.json or start the run again");
  }
  fillMissingCost(info, !j.contains("parameters"), !j.contains("training_flops_per_token"));
  return info;
}

RunInfo runInfoFor(const ProjectConfig& project, const RunConfig& run) {
  RunInfo info;
  info.run = run;
  info.project = project.toJson();
  info.project.erase("runs");
  info.project_file = project.file.string();
  info.seed = run.train.seed;
  return info;
}

void writeRunInfo(const fs::path& run_dir, const RunInfo& info) {
  writeFileAtomic(RunPaths{run_dir}.runJson(), info.toJson().dump(2) + "\n");
}

RunInfo readRunInfo(const fs::path& run_dir) {
  const fs::path file = RunPaths{run_dir}.runJson();
  if (!fs::exists(file)) {
    throw MixerLabError("no run.json in " + run_dir.string(), "pass a run folder that was started (runs/<run-id>)");
  }
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(readFile(file));
  } catch (const nlohmann::json::exception& e) {
    throw MixerLabError(file.string() + ": malformed: " + e.what(),
                        "restore it from a checkpoint's config.json or start the run again");
  }
  try {
    return RunInfo::fromJson(j);
  } catch (const MixerLabError& e) {
    throw MixerLabError(file.string() + ": " + e.problem(), e.fix());
  }
}

std::optional<RunInfo> tryReadRunInfo(const fs::path& run_dir) {
  try {
    if (!RunPaths{run_dir}.hasRunInfo()) return std::nullopt;
    return readRunInfo(run_dir);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace mixerlab
