// The reproduction suites per scale (see reproduce_plan.h). `tiny` is sized for 2 CPU cores and 45
// minutes: the mixer and both Llamas at D=128 and D=256, the other families at D=128 (N=4, T=128),
// two seeds, each run stopped at 1.25e12 training FLOPs (32-head eager attention runs at a sixth of
// the mixer's tokens per second there); it exercises every claim's pipeline, and its loss orderings
// are reported but not judged (below kOrderingMinBudgetFlops), and its schedules decay to zero at
// the budget (the research's epochs of the small sample would end every run early). `gpu` reaches the
// paper's smallest runs' range on one GPU on the research's schedule (decay over each family's
// configured epochs, cut by the FLOP budget); `paper` runs the research's presets.
#include "core/reproduce/reproduce_plan.h"

#include <cmath>
#include <fstream>

#include "core/config/project_config.h"
#include "core/models/model_registry.h"
#include "core/reproduce/research_claims.h"
#include "core/util/atomic_file.h"
#include "core/util/enum_names.h"
#include "core/util/error.h"
#include "core/util/json_document.h"

namespace mixerlab {
namespace fs = std::filesystem;

namespace {
constexpr EnumName<ReproduceScale> kScaleNames[] = {{ReproduceScale::kTiny, "tiny"},
                                                    {ReproduceScale::kSmall, "small"},
                                                    {ReproduceScale::kGpu, "gpu"},
                                                    {ReproduceScale::kPaper, "paper"}};
}  // namespace

std::string scaleName(ReproduceScale scale) { return enumName(kScaleNames, scale, "tiny"); }

ReproduceScale parseScale(const std::string& name) {
  if (const auto scale = enumFromName(kScaleNames, name)) return *scale;
  throw MixerLabError("unknown reproduction scale \"" + name + "\"", "use tiny, small, gpu or paper");
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
                         {"paper_row", r.paper_row},
                         {"label", r.label}});
  }
  j["inversion"] = {
      {"texts", inversion_texts}, {"iterations", inversion_iterations}, {"jobs", nlohmann::json::array()}};
  for (const auto& job : inversion) j["inversion"]["jobs"].push_back({{"run", job.run}, {"trained", job.trained}});
  j["retrieval"] = {{"runs", retrieval_runs},
                    {"pairs", retrieval_pairs},
                    {"context", retrieval_context},
                    {"epochs", retrieval_epochs},
                    {"layers", retrieval_layers},
                    {"learning_rate", retrieval_learning_rate},
                    {"batch_size", retrieval_batch_size},
                    {"warmup_steps", retrieval_warmup_steps},
                    {"after_final_norm", retrieval_after_final_norm},
                    {"note", retrieval_note}};
  j["infonce"] = {{"runs", infonce_runs}, {"steps", infonce_steps}, {"eval_every", infonce_eval_every}};
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
      run.label = r.value("label", "");
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
    p.retrieval_batch_size = ret.value("batch_size", int64_t{512});
    p.retrieval_warmup_steps = ret.value("warmup_steps", int64_t{500});
    p.retrieval_note = ret.value("note", "");
    p.retrieval_after_final_norm = ret.value("after_final_norm", false);  // plans before the option read before it
    const auto infonce = j.value("infonce", nlohmann::json::object());
    p.infonce_runs = infonce.value("runs", std::vector<std::string>{});
    p.infonce_steps = infonce.value("steps", int64_t{200});
    p.infonce_eval_every = infonce.value("eval_every", int64_t{50});
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

// One compared family of the loss-ordering claims: its arm, heads and attention.
struct ComparedFamily {
  const char* prefix;  // group names: <prefix>-d<D>
  ResearchArm arm;
  int64_t n_heads;        // 0: the family has no heads
  const char* attention;  // "" for families without attention
  const char* init;       // the family's research embedding init
  const char* preset;     // the projects/paper preset whose script's schedule_epochs the family keeps
};

constexpr ComparedFamily kMixerFamily{"mixer", ResearchArm::kMixer, 0, "", "N(0,1)", "s3-mixer-d1024"};
constexpr ComparedFamily kLlamaH32{"llama-h32", ResearchArm::kTransformer, 32, "eager",
                                   "N(0,0.02)", "s1-llama-d512-h32"};
constexpr ComparedFamily kLlamaH4{"llama-h4", ResearchArm::kTransformer, 4, "sdpa", "N(0,0.02)", "s4-llama-d512-h4"};
constexpr ComparedFamily kGptFamily{"gpt", ResearchArm::kGpt, 4, "sdpa", "N(0,0.02)", "s6-gpt-d512-b32"};
constexpr ComparedFamily kTransfixerFamily{"transfixer", ResearchArm::kTransfixer, 4, "sdpa",
                                           "N(0,0.02)",  "s7-transfixer-d512-h4"};
// The loss-ordering claims' families, searched over the scale's widths (GPT and the Transfixer only
// when the scale searches every family); the others at the narrowest width only.
constexpr ComparedFamily kWidthSearched[] = {kMixerFamily, kLlamaH32, kLlamaH4};
constexpr ComparedFamily kWidthSearchedAtScale[] = {kGptFamily, kTransfixerFamily};
constexpr ComparedFamily kNarrowOnly[] = {
    {"mixer-autoencoder", ResearchArm::kMixerAutoencoder, 0, "", "N(0,1)", "blog2-mixer-autoencoder-d512"},
    {"transformer-autoencoder", ResearchArm::kTransformerAutoencoder, 4, "sdpa", "N(0,0.02)",
     "blog2-transformer-autoencoder-d512"},
    {"bidirectional-mixer", ResearchArm::kBidirectionalMixer, 0, "", "N(0,1)", "s3-mixer-d1024"},
    {"bidirectional-transformer", ResearchArm::kBidirectionalTransformer, 4, "sdpa", "N(0,0.02)", "s4-llama-d512-h4"}};

nlohmann::json familyModel(const ComparedFamily& f, int64_t d_model, int64_t n_layers) {
  nlohmann::json model{{"arch", researchArmArchitecture(f.arm)}, {"d_model", d_model}, {"n_layers", n_layers}};
  if (f.n_heads > 0) model["n_heads"] = f.n_heads;
  if (*f.attention) model["attention"] = f.attention;
  return model;
}

std::string paperRowOf(const ComparedFamily& f, int64_t d_model) {
  const std::string d = std::to_string(d_model);
  if (f.arm == ResearchArm::kMixer) return "flat mixer D=" + d;
  if (f.arm == ResearchArm::kTransformer && f.n_heads == 32) return "Llama D=" + d + " H=32";
  if (f.arm == ResearchArm::kTransformer && f.n_heads == 4 && d_model == 512) return "Llama D=512 H=4";
  return "";
}

struct SuiteShape {
  std::vector<int64_t> widths;  // every width-searched family at each, narrowest first
  int64_t n_layers = 4;
  int seeds = 2;
  bool search_every_family = true;  // false: GPT and the Transfixer at the narrowest width only
  // The research's schedule: each family's learning rate decays over its preset's schedule_epochs
  // (projects/paper/project.json) and the FLOP budget stops it mid-schedule. nullptr: the decay
  // ends at the budget (scales whose budget spans several epochs of a small corpus).
  const nlohmann::json* research_presets = nullptr;
};

// The schedule_epochs of a projects/paper preset: its own, else the presets' default.
double presetScheduleEpochs(const nlohmann::json& presets, const std::string& name) {
  for (const auto& r : presets.at("runs")) {
    if (r.at("name") != name) continue;
    if (r.contains("train") && r["train"].contains("schedule_epochs"))
      return r["train"]["schedule_epochs"].get<double>();
    return presets.at("defaults").at("train").at("schedule_epochs").get<double>();
  }
  throw MixerLabError("projects/paper/project.json has no preset " + name,
                      "restore projects/paper/project.json from the MixerLab installation");
}

// `r` on the research's schedule: decay over `f`'s preset's epochs, cut by the budget.
void useResearchSchedule(PlannedRun& r, const ComparedFamily& f, const nlohmann::json& presets) {
  r.train["schedule_horizon"] = "epochs";
  r.train["schedule_epochs"] = presetScheduleEpochs(presets, f.preset);
}

// The comparison suite: the width-searched families at every width, the others at the narrowest,
// `seeds` seeds each, every run stopped at budget_flops; the embedding-init variants of the
// narrowest mixer and 4-head Llama; their inversion, retrieval and InfoNCE jobs.
void addComparisonSuite(ReproducePlan& plan, const SuiteShape& shape) {
  const auto schedule = [&](PlannedRun r, const ComparedFamily& f) {
    if (shape.research_presets != nullptr) useResearchSchedule(r, f, *shape.research_presets);
    plan.runs.push_back(std::move(r));
  };
  const auto add = [&](const ComparedFamily& f, int64_t d) {
    const std::string group = std::string(f.prefix) + "-d" + std::to_string(d);
    for (int s = 1; s <= shape.seeds; ++s) {
      schedule(planned(group + "-seed" + std::to_string(s), group, f.arm, f.init, s, familyModel(f, d, shape.n_layers),
                       paperRowOf(f, d)),
               f);
    }
  };
  const int64_t narrow = shape.widths.front();
  for (const auto& f : kWidthSearched) {
    for (const int64_t d : shape.widths) add(f, d);
  }
  for (const auto& f : kWidthSearchedAtScale) {
    for (const int64_t d : shape.widths) {
      if (shape.search_every_family || d == narrow) add(f, d);
    }
  }
  for (const auto& f : kNarrowOnly) add(f, narrow);
  // The inversion claim's other embedding scale for each side (seed 1 only).
  const std::string m = "mixer-d" + std::to_string(narrow), l = "llama-h4-d" + std::to_string(narrow);
  schedule(planned(m + "-emb0.02-seed1", m + "-emb0.02", ResearchArm::kMixer, "N(0,0.02)", 1,
                   withEmbeddingStd(familyModel(kMixerFamily, narrow, shape.n_layers), 0.02), "", false),
           kMixerFamily);
  schedule(planned(l + "-emb1-seed1", l + "-emb1", ResearchArm::kTransformer, "N(0,1)", 1,
                   withEmbeddingStd(familyModel(kLlamaH4, narrow, shape.n_layers), 1.0), "", false),
           kLlamaH4);
  for (const auto& run : {m + "-seed1", l + "-seed1", m + "-emb0.02-seed1", l + "-emb1-seed1"}) {
    plan.inversion.push_back({run, false});
    plan.inversion.push_back({run, true});
  }
  plan.retrieval_runs = {m + "-seed1", l + "-seed1"};
  plan.infonce_runs = plan.retrieval_runs;
}

// Retrieval at a scale too small for the research's 200 epochs of batch 512: the settings that
// break the retrieval model's symmetry on the demo models (docs/retrieval.md measured them).
void useSmallRetrieval(ReproducePlan& plan, int64_t pairs, int64_t epochs) {
  plan.retrieval_pairs = pairs;
  plan.retrieval_context = 32;
  plan.retrieval_layers = 4;
  plan.retrieval_epochs = epochs;
  plan.retrieval_learning_rate = 5e-4;
  plan.retrieval_batch_size = 32;
  plan.retrieval_warmup_steps = 50;
  plan.retrieval_note =
      "the research's optimiser (AdamW without weight decay, gradient clip 1.0, linear decay) with settings sized "
      "for " +
      std::to_string(pairs) + " synthetic pairs: 4 layers, batch 32, warm-up 50, lr 5e-4, " + std::to_string(epochs) +
      " epochs (the research: 8 layers, batch 512, warm-up 500, lr 1e-4, 200 epochs, "
      "which never leave chance on so few pairs)";
}

// Retrieval with the research's settings (RetrievalTrainSettings::research) at context c.
void useResearchRetrieval(ReproducePlan& plan, int64_t pairs, int64_t context) {
  plan.retrieval_pairs = pairs;
  plan.retrieval_context = context;
  plan.retrieval_note = "the research's settings (RetrievalTrainSettings::research at c=" + std::to_string(context) +
                        "), on synthetic pairs";
}

// Each run's resolved config: its label, and for FLOP budgets its max_tokens from the analytic
// training FLOPs per token.
void resolveRuns(ReproducePlan& plan, const fs::path& project_file) {
  for (auto& r : plan.runs) {
    nlohmann::json document = plan.project;
    document["runs"] = nlohmann::json::array({{{"name", r.name}, {"model", r.model}, {"train", r.train}}});
    const ProjectConfig resolved = parseProject(document, project_file, CorpusFiles::MayBeMissing);
    const RunConfig& run = resolved.runs.front();
    r.label = modelLabel(run.model);
    if (plan.budget_flops <= 0) continue;
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

// The paper scale: the research's presets on this machine, every one for 12 hours of wall clock
// (the schedules still decay over each script's configured epochs, so a fast GPU may end a run by
// epochs first: the report says when runs compared at one time are at different points of their
// schedules).
void addPaperSuite(ReproducePlan& plan, const fs::path& paper_dir) {
  const nlohmann::json presets = readJsonFile(paper_dir / "project.json", "");
  auto preset = [&](const std::string& name) {
    for (const auto& r : presets["runs"]) {
      if (r["name"] == name) return r;
    }
    throw MixerLabError("projects/paper/project.json has no preset " + name);
  };
  auto add = [&](const std::string& preset_name, const std::string& group, ResearchArm arm, std::string init,
                 std::string row, bool equal, double emb_std, const std::string& arch = "") {
    nlohmann::json p = preset(preset_name);
    nlohmann::json model = emb_std > 0 ? withEmbeddingStd(p["model"], emb_std) : p["model"];
    if (!arch.empty()) model["arch"] = arch;
    PlannedRun r = planned(group, group, arm, std::move(init), 42, model, std::move(row), equal);
    if (p.contains("train")) r.train.update(p["train"]);
    r.train["max_wall_s"] = 43200;
    plan.runs.push_back(r);
  };
  add("s3-mixer-d1024", "mixer-d1024", ResearchArm::kMixer, "N(0,1)", "flat mixer D=1024", true, 0);
  add("s1-llama-d512-h32", "llama-h32-d512", ResearchArm::kTransformer, "N(0,0.02)", "Llama D=512 H=32", true, 0);
  add("s4-llama-d512-h4", "llama-h4-d512", ResearchArm::kTransformer, "N(0,0.02)", "Llama D=512 H=4", true, 0);
  add("s6-gpt-d512-b32", "gpt-d512", ResearchArm::kGpt, "N(0,0.02)", "", true, 0);
  add("s7-llama-d512-h4-fa2", "llama-h4-fused-d512", ResearchArm::kTransformer, "N(0,0.02)", "", true, 0);
  add("s7-transfixer-d512-h4", "transfixer-d512", ResearchArm::kTransfixer, "N(0,0.02)", "", true, 0);
  add("blog2-mixer-autoencoder-d512", "mixer-autoencoder-d512", ResearchArm::kMixerAutoencoder, "N(0,1)", "", true, 0);
  add("blog2-transformer-autoencoder-d512", "transformer-autoencoder-d512", ResearchArm::kTransformerAutoencoder,
      "N(0,0.02)", "", true, 0);
  // Blog II's bidirectional models on TinyStories: the mixer and the 4-head Llama presets' shapes.
  add("s3-mixer-d1024", "bidirectional-mixer-d1024", ResearchArm::kBidirectionalMixer, "N(0,1)", "", true, 0,
      researchArmArchitecture(ResearchArm::kBidirectionalMixer));
  add("s4-llama-d512-h4", "bidirectional-transformer-d512", ResearchArm::kBidirectionalTransformer, "N(0,0.02)", "",
      true, 0, researchArmArchitecture(ResearchArm::kBidirectionalTransformer));
  add("s3-mixer-d1024", "mixer-d1024-emb0.02", ResearchArm::kMixer, "N(0,0.02)", "", false, 0.02);
  add("s4-llama-d512-h4", "llama-h4-d512-emb1", ResearchArm::kTransformer, "N(0,1)", "", false, 1.0);
  for (const auto& run : {"mixer-d1024", "llama-h4-d512", "mixer-d1024-emb0.02", "llama-h4-d512-emb1"}) {
    plan.inversion.push_back({run, false});
    plan.inversion.push_back({run, true});
  }
  plan.retrieval_runs = {"mixer-d1024", "llama-h4-d512"};
  plan.infonce_runs = plan.retrieval_runs;
  useResearchRetrieval(plan, 20000, 128);
  plan.inversion_texts = 16;
  plan.infonce_steps = 2000;
  plan.infonce_eval_every = 250;
}

}  // namespace

ReproducePlan planReproduction(ReproduceScale scale, const fs::path& projects_dir) {
  ReproducePlan plan;
  plan.scale = scale;
  const fs::path paper_dir = projects_dir / "paper";
  plan.paper = readJsonFile(paper_dir / "reported_numbers.json",
                            "pass --projects with the folder that holds demo/ and paper/ (a checkout's projects/)");
  const bool on_tinystories = scale == ReproduceScale::kGpu || scale == ReproduceScale::kPaper;
  const fs::path project_file = (on_tinystories ? paper_dir : projects_dir / "demo") / "project.json";
  switch (scale) {
    case ReproduceScale::kTiny:
      plan.summary =
          "Tiny, a pipeline check: the bundled TinyStories sample at T=128; the masked mixer and Llama with 32 "
          "heads (eager attention) and with 4 heads at D=128 and D=256 (N=4), GPT, the Transfixer, the two "
          "autoencoders and the two bidirectional models at D=128, 2 seeds each, every run stopped at 1.25e12 "
          "training FLOPs; inversion of 8 models on 2 texts, retrieval and InfoNCE on the D=128 mixer's and Llama's "
          "embeddings. About 40 minutes on 2 CPU cores. Its budget is some 10,000 times below the paper's "
          "smallest runs, where the smallest model learns fastest whatever its family: the claims about trained "
          "models are measured and shown, not judged.";
      break;
    case ReproduceScale::kSmall:
      plan.summary =
          "Small: the bundled TinyStories sample at T=128; the same families at D=256 and D=512 (N=8), 3 seeds "
          "each at 1e14 training FLOPs, the init variants, inversion, retrieval and InfoNCE. Hours on 2 CPU "
          "cores; its loss orderings are reported, not judged (below 1e15 FLOPs per run).";
      break;
    case ReproduceScale::kGpu:
      plan.summary =
          "GPU: the research's TinyStories setup (T=512, one story per row, left padded, 4k tokenizer) on one "
          "GPU; the same families at D=256 and D=512 (N=8), 2 seeds each at 1e16 training FLOPs, the range of "
          "the paper's smallest runs, each learning rate decaying over its research script's epochs while the "
          "budget stops the run, as the research's fixed-compute runs were stopped by the clock; inversion, "
          "retrieval and InfoNCE. About an hour on an H100-class GPU. "
          "Needs the TinyStories files in projects/paper/data/.";
      break;
    case ReproduceScale::kPaper:
      plan.summary =
          "The paper's setup: the research's presets (flat mixer D=1024; Llama D=512 with 32 heads and eager "
          "attention, with 4 heads, and with fused attention; GPT; the Transfixer; blog II's autoencoders and "
          "bidirectional models), each for 12 hours of wall clock on this machine with its script's schedule, "
          "the two embedding-init variants, inversion, retrieval and InfoNCE. Days on one GPU. Needs the "
          "TinyStories files in projects/paper/data/.";
      break;
  }
  plan.project = baseProject(project_file, "reproduce-" + scaleName(scale), plan.summary);
  if (scale == ReproduceScale::kPaper) {
    addPaperSuite(plan, paper_dir);
  } else if (scale == ReproduceScale::kGpu) {
    plan.project["defaults"]["train"]["eval_batches"] = 64;
    plan.budget_flops = 1e16;
    const nlohmann::json presets = readJsonFile(paper_dir / "project.json", "");
    SuiteShape shape{{256, 512}, 8, 2};
    shape.research_presets = &presets;
    addComparisonSuite(plan, shape);
    useResearchRetrieval(plan, 20000, 32);
    plan.inversion_texts = 8;
    plan.infonce_steps = 500;
    plan.infonce_eval_every = 100;
  } else {
    const bool tiny = scale == ReproduceScale::kTiny;
    plan.project["defaults"]["train"]["eval_batches"] = 16;
    plan.project["defaults"]["train"]["threads"] = 0;
    plan.budget_flops = tiny ? 1.25e12 : 1e14;
    if (tiny) {
      addComparisonSuite(plan, {{128, 256}, 4, 2, false});
      useSmallRetrieval(plan, 2000, 30);
      plan.infonce_steps = 40;
      plan.infonce_eval_every = 20;
      plan.inversion_texts = 2;  // 8 models x 500 descent steps per text: 2 texts keep tiny inside 45 minutes
    } else {
      addComparisonSuite(plan, {{256, 512}, 8, 3});
      useSmallRetrieval(plan, 4000, 60);
      plan.inversion_texts = 8;
    }
  }
  resolveRuns(plan, project_file);
  finishProject(plan);
  return plan;
}

}  // namespace mixerlab
