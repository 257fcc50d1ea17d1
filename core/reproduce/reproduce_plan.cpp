// The reproduction suites per scale (see reproduce_plan.h). Sizes for `tiny` were chosen on 2 CPU
// cores: the demo's mixer (D=256, N=4, T=128) at the demo's 300 steps sets the compute, 1e13
// training FLOPs; the Llama pair brackets it (D=128 as in the paper's smallest S1 row, and D=256 at
// the mixer's width). Three seeds each; the whole suite measured about 30 minutes there.
#include "core/reproduce/reproduce_plan.h"

#include <cmath>
#include <fstream>

#include "core/config/project_config.h"
#include "core/models/model_registry.h"
#include "core/util/atomic_file.h"
#include "core/util/enum_names.h"
#include "core/util/error.h"
#include "core/util/json_document.h"

namespace mixerlab {
namespace fs = std::filesystem;

namespace {
constexpr EnumName<ReproduceScale> kScaleNames[] = {
    {ReproduceScale::kTiny, "tiny"}, {ReproduceScale::kSmall, "small"}, {ReproduceScale::kPaper, "paper"}};
}  // namespace

std::string scaleName(ReproduceScale scale) { return enumName(kScaleNames, scale, "tiny"); }

ReproduceScale parseScale(const std::string& name) {
  if (const auto scale = enumFromName(kScaleNames, name)) return *scale;
  throw MixerLabError("unknown reproduction scale \"" + name + "\"", "use tiny, small or paper");
}

const PlannedRun& ReproducePlan::run(const std::string& name) const {
  for (const auto& r : runs) {
    if (r.name == name) return r;
  }
  throw MixerLabError("the reproduction plan has no run \"" + name + "\"");
}

nlohmann::json ReproducePlan::toJson() const {
  nlohmann::json j;
  j["scale"] = scaleName(scale);
  j["summary"] = summary;
  j["project"] = project;
  j["budget_flops"] = budget_flops;
  j["runs"] = nlohmann::json::array();
  for (const auto& r : runs) {
    j["runs"].push_back({{"name", r.name},
                         {"group", r.group},
                         {"family", researchArmName(r.arm)},
                         {"embedding_init", r.embedding_init},
                         {"equal_compute", r.equal_compute},
                         {"seed", r.seed},
                         {"model", r.model},
                         {"train", r.train},
                         {"paper_row", r.paper_row}});
  }
  j["inversion"] = {
      {"texts", inversion_texts}, {"iterations", inversion_iterations}, {"jobs", nlohmann::json::array()}};
  for (const auto& job : inversion) j["inversion"]["jobs"].push_back({{"run", job.run}, {"trained", job.trained}});
  j["retrieval"] = {{"runs", retrieval_runs},       {"pairs", retrieval_pairs},
                    {"context", retrieval_context}, {"epochs", retrieval_epochs},
                    {"layers", retrieval_layers},   {"learning_rate", retrieval_learning_rate}};
  j["paper"] = paper;
  return j;
}

ReproducePlan ReproducePlan::fromJson(const nlohmann::json& j) {
  try {
    ReproducePlan p;
    p.scale = parseScale(j.at("scale").get<std::string>());
    p.summary = j.value("summary", "");
    p.project = j.at("project");
    p.budget_flops = j.value("budget_flops", 0.0);
    for (const auto& r : j.at("runs")) {
      PlannedRun run;
      run.name = r.at("name").get<std::string>();
      run.group = r.at("group").get<std::string>();
      run.arm = researchArmFromName(r.at("family").get<std::string>());
      run.embedding_init = r.value("embedding_init", "");
      run.equal_compute = r.value("equal_compute", true);
      run.seed = r.value("seed", uint64_t{0});
      run.model = r.at("model");
      run.train = r.value("train", nlohmann::json::object());
      run.paper_row = r.value("paper_row", "");
      p.runs.push_back(run);
    }
    const auto& inv = j.at("inversion");
    p.inversion_texts = inv.value("texts", int64_t{4});
    p.inversion_iterations = inv.value("iterations", int64_t{500});
    for (const auto& job : inv.at("jobs"))
      p.inversion.push_back({job.at("run").get<std::string>(), job.at("trained").get<bool>()});
    const auto& ret = j.at("retrieval");
    p.retrieval_runs = ret.at("runs").get<std::vector<std::string>>();
    p.retrieval_pairs = ret.value("pairs", int64_t{1000});
    p.retrieval_context = ret.value("context", int64_t{32});
    p.retrieval_epochs = ret.value("epochs", int64_t{20});
    p.retrieval_layers = ret.value("layers", int64_t{8});
    p.retrieval_learning_rate = ret.value("learning_rate", 1e-4);
    p.paper = j.value("paper", nlohmann::json::object());
    return p;
  } catch (const nlohmann::json::exception& e) {
    throw MixerLabError(std::string("plan.json is malformed: ") + e.what(),
                        "start the reproduction again in a new --out folder");
  }
}

namespace {

nlohmann::json readJsonFile(const fs::path& file, const std::string& fix) {
  if (!fs::exists(file)) throw MixerLabError(file.string() + " is missing", fix);
  return parseJsonDocument(readFile(file), file.string());
}

// The base project: a bundled project's corpus, tokenizer and defaults with absolute data paths.
nlohmann::json baseProject(const fs::path& project_file, const std::string& name, const std::string& description) {
  nlohmann::json j = readJsonFile(project_file, "pass --projects with the folder that holds demo/ and paper/");
  const fs::path folder = fs::absolute(project_file).parent_path();
  for (const char* key : {"train", "eval"}) {
    if (j["corpus"].contains(key))
      j["corpus"][key] = (folder / j["corpus"][key].get<std::string>()).lexically_normal().string();
  }
  j["name"] = name;
  j["description"] = description;
  j["runs"] = nlohmann::json::array();
  return j;
}

PlannedRun planned(std::string name, std::string group, ResearchArm arm, std::string init, uint64_t seed,
                   nlohmann::json model, std::string paper_row, bool equal_compute = true) {
  PlannedRun r;
  r.name = std::move(name);
  r.group = std::move(group);
  r.arm = arm;
  r.embedding_init = std::move(init);
  r.seed = seed;
  r.model = std::move(model);
  r.paper_row = std::move(paper_row);
  r.equal_compute = equal_compute;
  r.train = {{"seed", seed}};
  return r;
}

nlohmann::json withEmbeddingStd(nlohmann::json model, double std) {
  model["options"]["embedding_init_std"] = std;
  return model;
}

// The CPU suites: the mixer, two Llama widths and the init variants, `seeds` seeds each, every
// equal-compute run stopped at `budget_flops` with its learning rate decaying to zero there.
void addCpuSuite(ReproducePlan& plan, int64_t mixer_d, int64_t llama_small_d, int64_t n_layers, int seeds) {
  const auto mixer = nlohmann::json{
      {"arch", researchArmArchitecture(ResearchArm::kMixer)}, {"d_model", mixer_d}, {"n_layers", n_layers}};
  const auto llama = [&](int64_t d) {
    return nlohmann::json{{"arch", researchArmArchitecture(ResearchArm::kTransformer)},
                          {"d_model", d},
                          {"n_layers", n_layers},
                          {"n_heads", 4}};
  };
  const std::string m = "mixer-d" + std::to_string(mixer_d);
  const std::string l1 = "llama-d" + std::to_string(llama_small_d), l2 = "llama-d" + std::to_string(mixer_d);
  for (int s = 1; s <= seeds; ++s) {
    const std::string seed = "-seed" + std::to_string(s);
    plan.runs.push_back(
        planned(m + seed, m, ResearchArm::kMixer, "N(0,1)", s, mixer, "flat mixer D=" + std::to_string(mixer_d)));
    plan.runs.push_back(planned(l1 + seed, l1, ResearchArm::kTransformer, "N(0,0.02)", s, llama(llama_small_d),
                                "Llama D=" + std::to_string(llama_small_d) + " H=32"));
    plan.runs.push_back(planned(l2 + seed, l2, ResearchArm::kTransformer, "N(0,0.02)", s, llama(mixer_d),
                                "Llama D=" + std::to_string(mixer_d) + " H=32"));
  }
  // The inversion claim's other embedding scale for each side (seed 1 only).
  plan.runs.push_back(planned(m + "-emb0.02-seed1", m + "-emb0.02", ResearchArm::kMixer, "N(0,0.02)", 1,
                              withEmbeddingStd(mixer, 0.02), "", false));
  plan.runs.push_back(planned(l1 + "-emb1-seed1", l1 + "-emb1", ResearchArm::kTransformer, "N(0,1)", 1,
                              withEmbeddingStd(llama(llama_small_d), 1.0), "", false));
  for (const auto& run : {m + "-seed1", l1 + "-seed1", m + "-emb0.02-seed1", l1 + "-emb1-seed1"}) {
    plan.inversion.push_back({run, false});
    plan.inversion.push_back({run, true});
  }
  // Retrieval on the demo pair's embeddings (mixer and the narrower Llama): settings that break the
  // retrieval model's symmetry at this size (docs/retrieval.md measured them on the demo models).
  plan.retrieval_runs = {m + "-seed1", l1 + "-seed1"};
  plan.retrieval_pairs = 2000;
  plan.retrieval_layers = 4;
  plan.retrieval_epochs = 30;
  plan.retrieval_learning_rate = 5e-4;
}

// max_tokens for each equal-compute run from its analytic training FLOPs per token.
void fillComputeBudgets(ReproducePlan& plan, const fs::path& project_file) {
  for (auto& r : plan.runs) {
    nlohmann::json document = plan.project;
    document["runs"] = nlohmann::json::array({{{"name", r.name}, {"model", r.model}, {"train", r.train}}});
    const ProjectConfig resolved = parseProject(document, project_file, CorpusFiles::MayBeMissing);
    const RunConfig& run = resolved.runs.front();
    const double per_token = estimateCost(run.model, run.train.batch_size).training_flops_per_token;
    const auto tokens = static_cast<int64_t>(std::llround(plan.budget_flops / per_token));
    const int64_t tokens_per_step = run.train.batch_size * run.model.context_length;
    const int64_t steps = std::max<int64_t>(1, tokens / tokens_per_step);
    r.train["max_tokens"] = tokens;
    r.train["max_steps"] = 0;
    r.train["max_wall_s"] = 0;
    // About ten evaluations per run, a checkpoint at every other one (what an interrupted suite resumes from).
    const int64_t eval_every = std::max<int64_t>(10, steps / 10);
    r.train["eval_every"] = eval_every;
    r.train["checkpoint_every"] = 2 * eval_every;
    r.train["log_every"] = std::max<int64_t>(5, eval_every / 4);
  }
}

void finishProject(ReproducePlan& plan) {
  for (const auto& r : plan.runs) {
    plan.project["runs"].push_back({{"name", r.name}, {"model", r.model}, {"train", r.train}});
  }
}

}  // namespace

ReproducePlan planReproduction(ReproduceScale scale, const fs::path& projects_dir) {
  ReproducePlan plan;
  plan.scale = scale;
  const fs::path paper_dir = projects_dir / "paper";
  plan.paper = readJsonFile(paper_dir / "reported_numbers.json",
                            "pass --projects with the folder that holds demo/ and paper/ (a checkout's projects/)");
  const fs::path generated = projects_dir / "demo" / "project.json";  // only names the parse's base folder
  if (scale == ReproduceScale::kPaper) {
    plan.summary =
        "The paper's setup: the flat mixer D=1024 against the best Llama of Table S1 (D=512, H=32), each for 12 "
        "hours of wall clock (the presets' budget: about 24 h on one RTX 3060-class GPU, roughly 6-8 h on an "
        "H100), the two embedding-init variants (another 24 h), inversion of all eight models and retrieval on "
        "the D=1024 embeddings. Needs the TinyStories files in projects/paper/data/.";
    plan.project = baseProject(paper_dir / "project.json", "reproduce-paper", plan.summary);
    const nlohmann::json presets = readJsonFile(paper_dir / "project.json", "");
    auto preset = [&](const std::string& name) {
      for (const auto& r : presets["runs"]) {
        if (r["name"] == name) return r;
      }
      throw MixerLabError("projects/paper/project.json has no preset " + name);
    };
    auto from = [&](const std::string& preset_name, std::string name, std::string group, ResearchArm arm,
                    std::string init, std::string row, bool equal, double emb_std) {
      nlohmann::json p = preset(preset_name);
      PlannedRun r = planned(std::move(name), std::move(group), arm, std::move(init), 42,
                             emb_std > 0 ? withEmbeddingStd(p["model"], emb_std) : p["model"], std::move(row), equal);
      if (p.contains("train")) r.train.update(p["train"]);
      return r;
    };
    plan.runs.push_back(from("s3-mixer-d1024", "mixer-d1024", "mixer-d1024", ResearchArm::kMixer, "N(0,1)",
                             "flat mixer D=1024", true, 0));
    plan.runs.push_back(from("s1-llama-d512-h32", "llama-d512-h32", "llama-d512-h32", ResearchArm::kTransformer,
                             "N(0,0.02)", "Llama D=512 H=32", true, 0));
    plan.runs.push_back(from("s3-mixer-d1024", "mixer-d1024-emb0.02", "mixer-d1024-emb0.02", ResearchArm::kMixer,
                             "N(0,0.02)", "", false, 0.02));
    plan.runs.push_back(from("s1-llama-d512-h32", "llama-d512-h32-emb1", "llama-d512-h32-emb1",
                             ResearchArm::kTransformer, "N(0,1)", "", false, 1.0));
    for (const auto& r : plan.runs) {
      plan.inversion.push_back({r.name, false});
      plan.inversion.push_back({r.name, true});
    }
    plan.retrieval_runs = {"mixer-d1024", "llama-d512-h32"};
    plan.retrieval_pairs = 20000;
    plan.retrieval_context = 128;
    plan.retrieval_epochs = 100;
    plan.retrieval_layers = 8;
    plan.inversion_texts = 16;
    finishProject(plan);
    return plan;
  }
  const bool tiny = scale == ReproduceScale::kTiny;
  plan.summary =
      tiny ? "Tiny: the bundled TinyStories sample at T=128; the masked mixer (D=256, N=4) against Llama D=128 and "
             "D=256 (N=4), 3 seeds each, every run stopped at 1e13 training FLOPs; one seed of each embedding-init "
             "variant; inversion of 8 models (4 texts, 500 steps, every layer); retrieval on 2,000 synthetic "
             "story pairs with the mixer's and the D=128 Llama's embeddings. About 30 minutes on 2 CPU cores."
           : "Small: the bundled TinyStories sample at T=128; the masked mixer (D=512, N=8) against Llama D=256 "
             "and D=512 (N=8), 3 seeds each at 1e14 training FLOPs, the init variants, inversion and retrieval. "
             "About 6-8 hours on 2 CPU cores, well under an hour on one GPU.";
  plan.project = baseProject(projects_dir / "demo" / "project.json", "reproduce-" + scaleName(scale), plan.summary);
  plan.project["defaults"]["train"]["eval_batches"] = 16;
  plan.project["defaults"]["train"]["threads"] = 0;
  plan.budget_flops = tiny ? 1e13 : 1e14;
  if (tiny) {
    addCpuSuite(plan, 256, 128, 4, 3);
  } else {
    addCpuSuite(plan, 512, 256, 8, 3);
    plan.retrieval_epochs = 60;
    plan.retrieval_pairs = 4000;
    plan.inversion_texts = 8;
  }
  fillComputeBudgets(plan, generated);
  finishProject(plan);
  return plan;
}

}  // namespace mixerlab
