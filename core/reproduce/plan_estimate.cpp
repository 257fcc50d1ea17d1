// Machine table and time estimates for a reproduction plan (see plan_estimate.h).
#include "core/reproduce/plan_estimate.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <sstream>

#include "core/config/project_config.h"
#include "core/models/model_registry.h"
#include "core/util/error.h"

namespace mixerlab {

namespace {

// The 2-core CI machine's measured rate over the tiny suite's 30 training runs (N=4, T=128, with
// their evaluations): 4.5e13 training FLOPs in 1,762 s, 2.6e10 FLOP/s on 2 cores. Mixers ran at
// 3.6e10, 32-head eager attention at 0.8e10 (its softmax and many small matrix products are not
// counted as FLOPs), so a plan's time depends on its mix of families.
constexpr double kCpuFlopsPerCore = 1.3e10;
// GPUs: the datasheet's dense fp16 tensor-core peak times 15%, what models of D=256-1024 at T=512
// and batch 16 sustain in fp16 AMP (small matrices, launch overhead); no GPU was measured here.
constexpr double kGpuUtilisation = 0.15;

std::string rate(double flops_per_s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2g", flops_per_s);
  return buf;
}

}  // namespace

const std::vector<HardwareProfile>& hardwareProfiles() {
  static const std::vector<HardwareProfile> table = [] {
    struct Gpu {
      const char* key;
      const char* description;
      double fp16_peak;
    };
    const Gpu gpus[] = {{"rtx3060", "one RTX 3060 12 GB (the paper's)", 51e12},
                        {"v100", "one V100", 125e12},
                        {"4xv100", "4 V100, data parallel (the paper's server)", 4 * 125e12},
                        {"a100", "one A100", 312e12},
                        {"h100", "one H100 SXM", 989e12},
                        {"h200", "one H200", 989e12}};
    std::vector<HardwareProfile> profiles;
    for (const auto& g : gpus) {
      profiles.push_back({g.key, g.description, g.fp16_peak * kGpuUtilisation,
                          "15% of the " + rate(g.fp16_peak) + " FLOP/s fp16 datasheet peak (assumed, not measured)"});
    }
    return profiles;
  }();
  return table;
}

HardwareProfile cpuProfile(int cores) {
  cores = std::max(1, cores);
  return {"cpu-" + std::to_string(cores), std::to_string(cores) + " CPU cores", kCpuFlopsPerCore * cores,
          rate(kCpuFlopsPerCore) +
              " FLOP/s per core, measured over the tiny suite's training runs on the 2-core CI machine"};
}

HardwareProfile hardwareProfile(const std::string& key) {
  if (key.rfind("cpu-", 0) == 0) {
    try {
      return cpuProfile(std::stoi(key.substr(4)));
    } catch (const std::exception&) {
    }
  }
  std::string keys = "cpu-N";
  for (const auto& p : hardwareProfiles()) {
    if (p.key == key) return p;
    keys += ", " + p.key;
  }
  throw MixerLabError("unknown hardware \"" + key + "\"", "use one of: " + keys);
}

HardwareProfile profileOf(const HardwareReport& machine) {
  if (machine.usable_gpus > 0 && !machine.gpus.empty()) {
    std::string name = machine.gpus.front().name;
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    name.erase(std::remove(name.begin(), name.end(), ' '), name.end());
    for (const char* key : {"rtx3060", "v100", "a100", "h100", "h200"}) {
      if (name.find(key) != std::string::npos) return hardwareProfile(key);
    }
  }
  return cpuProfile(machine.cpu_cores);
}

PlanEstimate estimatePlan(const ReproducePlan& plan, const HardwareProfile& hardware) {
  PlanEstimate e;
  e.hardware = hardware;
  const ProjectConfig project = parseProject(plan.project, "/", CorpusFiles::MayBeMissing);
  const auto add = [&](std::string title, double flops, std::string bound, double seconds = -1) {
    if (seconds < 0) seconds = flops / hardware.flops_per_s;
    e.steps.push_back({std::move(title), flops, seconds, std::move(bound)});
    e.total_s += seconds;
  };
  const auto flopsPerToken = [&](const RunConfig& run) {
    return estimateCost(run.model, run.train.batch_size).training_flops_per_token;
  };
  for (const auto& planned : plan.runs) {
    const RunConfig& run = project.run(planned.name);
    const double per_token = flopsPerToken(run);
    // A schedule over the configured epochs also ends the run there (one row per document of the
    // capped corpus; without a cap the corpus size is unknown here and the epochs do not bind).
    const bool epochs_bind = run.train.horizonFromEpochs() && project.corpus.max_examples > 0;
    const double epochs_flops = epochs_bind
                                    ? run.train.schedule_epochs * static_cast<double>(project.corpus.max_examples) *
                                          static_cast<double>(run.model.context_length) * per_token
                                    : 1e300;
    double flops = plan.budget_flops;
    std::string bound = "FLOP budget";
    double seconds = -1;
    if (flops <= 0) {  // a wall-clock budget
      seconds = run.train.max_wall_s > 0 ? run.train.max_wall_s : 1e300;
      bound = "wall clock";
      flops = seconds * hardware.flops_per_s;
    }
    if (epochs_flops < flops) {
      flops = epochs_flops;
      seconds = -1;
      bound = "epochs";
    }
    e.train_flops += flops;
    add("train " + planned.name, flops, bound, seconds);
  }
  for (const auto& job : plan.inversion) {
    const RunConfig& run = project.run(job.run);
    // Each step is a forward and a backward pass to the input (no weight gradients: 2/3 of a training
    // step) through the layers up to the one inverted (layer k of N costs k/N of the whole stack):
    // (N+1)/2 stacks per step summed over layers.
    const double flops = static_cast<double>(plan.inversion_texts * plan.inversion_iterations) *
                         static_cast<double>(run.model.context_length) * flopsPerToken(run) * (2.0 / 3.0) *
                         static_cast<double>(run.model.n_layers + 1) / 2.0;
    add(std::string("invert ") + job.run + (job.trained ? " (trained)" : " (untrained)"), flops, "work");
  }
  for (const auto& name : plan.retrieval_runs) {
    const RunConfig& run = project.run(name);
    const auto d = static_cast<double>(run.model.d_model);
    const auto c = static_cast<double>(plan.retrieval_context);
    // Embedding every summary and story (a forward pass is a third of a training step), then the
    // retrieval mixer: per position and layer an 8 D^2 feed-forward and a c x c token mix, x3 for training.
    const double embed =
        2.0 * static_cast<double>(plan.retrieval_pairs * run.model.context_length) * flopsPerToken(run) / 3.0;
    const double model = 0.9 * static_cast<double>(plan.retrieval_pairs * plan.retrieval_epochs) * c * 6.0 *
                         static_cast<double>(plan.retrieval_layers) * (8.0 * d * d + 2.0 * c * d);
    add("retrieval on " + name + " embeddings", embed + model, "work");
  }
  for (const auto& name : plan.infonce_runs) {
    const RunConfig& run = project.run(name);
    // 8 accumulated summaries per step, each with 7 candidate stories: 64 rows of T tokens.
    const double flops = static_cast<double>(plan.infonce_steps * 64 * run.model.context_length) * flopsPerToken(run);
    add("InfoNCE fine-tuning of " + name, flops, "work");
  }
  return e;
}

namespace {

std::string duration(double s) {
  char buf[48];
  if (s >= 86400 * 2) {
    std::snprintf(buf, sizeof buf, "%.1f d", s / 86400);
  } else if (s >= 3600) {
    std::snprintf(buf, sizeof buf, "%.1f h", s / 3600);
  } else if (s >= 60) {
    std::snprintf(buf, sizeof buf, "%.0f min", s / 60);
  } else {
    std::snprintf(buf, sizeof buf, "%.0f s", s);
  }
  return buf;
}

std::string flopsText(double f) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2g", f);
  return buf;
}

}  // namespace

std::string formatPlan(const ReproducePlan& plan, const PlanEstimate& e) {
  std::ostringstream o;
  o << "scale: " << scaleName(plan.scale) << "\n" << plan.summary << "\n\n";
  const auto& corpus = plan.project.value("corpus", nlohmann::json::object());
  o << "data: " << corpus.value("train", std::string("?")) << " (eval: " << corpus.value("eval", std::string("?"))
    << ")\n";
  o << "budget per equal-compute run: "
    << (plan.budget_flops > 0 ? flopsText(plan.budget_flops) + " training FLOPs"
                              : std::string("the presets' wall clock (12 h), or their epochs if sooner"))
    << "\n";
  o << "hardware: " << e.hardware.description << " (" << e.hardware.key << "), " << flopsText(e.hardware.flops_per_s)
    << " FLOP/s: " << e.hardware.basis << "\n\n";
  size_t i = 0;
  o << "runs:\n";
  for (const auto& r : plan.runs) {
    const StepEstimate& s = e.steps[i++];
    // The research's schedule (schedule_horizon "epochs"): said, since the budget cuts it mid-way.
    std::string schedule;
    if (r.train.value("schedule_horizon", "") == "epochs") {
      std::ostringstream epochs;
      epochs << r.train.value("schedule_epochs", 0.0);
      schedule = "; learning rate over " + epochs.str() + " epochs, cut there";
    }
    o << "  " << r.name << "  [" << r.label << "]  " << researchArmName(r.arm) << ", " << r.embedding_init
      << (r.equal_compute ? "" : ", init variant") << ": " << flopsText(s.flops) << " FLOPs, " << duration(s.seconds)
      << " (" << s.bound << schedule << ")\n";
  }
  o << "analysis:\n";
  for (; i < e.steps.size(); ++i) {
    o << "  " << e.steps[i].title << ": " << flopsText(e.steps[i].flops) << " FLOPs, " << duration(e.steps[i].seconds)
      << "\n";
  }
  o << "\ntotal: " << duration(e.total_s) << " on " << e.hardware.description << " (training "
    << flopsText(e.train_flops) << " FLOPs)\n";
  return o.str();
}

}  // namespace mixerlab
