// Project file loading and validation (see project_config.h).
#include "core/config/project_config.h"

#include <limits>
#include <set>

#include "core/config/run_defaults.h"
#include "core/util/json_fields.h"
#include "core/models/model_registry.h"
#include "core/models/objectives.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"

namespace mixerlab {
namespace fs = std::filesystem;

namespace {
constexpr int64_t kMaxInt = std::numeric_limits<int64_t>::max();

fs::path resolvePath(const fs::path& base, const std::string& value) {
  fs::path p(value);
  return p.is_absolute() ? p : fs::weakly_canonical(base / p);
}

ModelConfig parseModel(JsonFields f, int64_t vocab_size) {
  ModelConfig m;
  std::vector<std::string> arch_names;
  for (const auto& a : architectures()) arch_names.push_back(a.name);
  m.arch = f.choice("arch", m.arch, arch_names);
  m.vocab_size = f.integer("vocab_size", vocab_size, 2, 1 << 24);
  if (m.vocab_size != vocab_size) {
    f.fail("vocab_size", "is " + std::to_string(m.vocab_size) + " but the tokenizer's vocab_size is " +
                             std::to_string(vocab_size),
           "omit model.vocab_size (it follows the tokenizer) or make them equal");
  }
  m.d_model = f.integer("d_model", m.d_model, 1, 1 << 20);
  m.n_layers = f.integer("n_layers", m.n_layers, 1, 4096);
  m.context_length = f.integer("context_length", m.context_length, 2, 1 << 20);
  m.n_heads = f.integer("n_heads", m.n_heads, 1, 4096);
  m.ff_mult = f.integer("ff_mult", m.ff_mult, 1, 64);
  m.kernel_size = f.integer("kernel_size", m.kernel_size, 1, 64);
  m.tie_weights = f.boolean("tie_weights", m.tie_weights);
  m.rope_theta = f.number("rope_theta", m.rope_theta, 1.0, 1e9);
  m.norm_eps = f.number("norm_eps", m.norm_eps, -1.0, 1.0);
  m.objective = f.choice("objective", m.objective, {"next_token", "multi_token", "one_step_completion"});
  m.mtp_tokens = f.integer("mtp_tokens", m.mtp_tokens, 2, 16);
  if (f.has("options")) m.options = f.object("options").raw();
  f.rejectUnknownKeys();
  std::vector<std::string> problems;
  findArchitecture(m.arch).validate(m, problems);
  validateObjective(m, problems);
  if (!problems.empty()) {
    // Problems read "field: what is wrong"; the field may be nested ("options.expansion").
    const auto colon = problems.front().find(": ");
    if (colon == std::string::npos) f.fail("arch", problems.front());
    f.fail(problems.front().substr(0, colon), problems.front().substr(colon + 2));
  }
  return m;
}

TrainConfig parseTrain(JsonFields f) {
  TrainConfig t;
  t.batch_size = f.integer("batch_size", t.batch_size, 1, 1 << 20);
  t.grad_accum_steps = f.integer("grad_accum_steps", t.grad_accum_steps, 1, 1 << 20);
  t.learning_rate = f.number("learning_rate", t.learning_rate, 0.0, 10.0);
  t.weight_decay = f.number("weight_decay", t.weight_decay, 0.0, 10.0);
  t.beta1 = f.number("beta1", t.beta1, 0.0, 0.999999);
  t.beta2 = f.number("beta2", t.beta2, 0.0, 0.999999999);
  t.adam_eps = f.number("adam_eps", t.adam_eps, 0.0, 1.0);
  t.warmup_steps = f.integer("warmup_steps", t.warmup_steps, 0, kMaxInt);
  t.schedule = f.choice("schedule", t.schedule, {"linear", "cosine", "constant"});
  t.min_lr_ratio = f.number("min_lr_ratio", t.min_lr_ratio, 0.0, 1.0);
  t.grad_clip_norm = f.number("grad_clip_norm", t.grad_clip_norm, 0.0, 1e9);
  t.max_steps = f.integer("max_steps", t.max_steps, 0, kMaxInt);
  t.max_tokens = f.integer("max_tokens", t.max_tokens, 0, kMaxInt);
  t.max_wall_s = f.number("max_wall_s", t.max_wall_s, 0.0, 1e9);
  t.schedule_steps = f.integer("schedule_steps", t.schedule_steps, 0, kMaxInt);
  t.eval_every = f.integer("eval_every", t.eval_every, 0, kMaxInt);
  t.eval_batches = f.integer("eval_batches", t.eval_batches, 0, kMaxInt);
  t.log_every = f.integer("log_every", t.log_every, 1, kMaxInt);
  t.checkpoint_every = f.integer("checkpoint_every", t.checkpoint_every, 0, kMaxInt);
  t.keep_checkpoints = f.integer("keep_checkpoints", t.keep_checkpoints, 1, 1000);
  t.seed = static_cast<uint64_t>(f.integer("seed", static_cast<int64_t>(t.seed), 0, kMaxInt));
  t.device = f.string("device", t.device);
  if (t.device != "auto" && t.device != "cpu" && t.device.rfind("cuda", 0) != 0) {
    f.fail("device", "expected \"auto\", \"cpu\", \"cuda\" or \"cuda:N\", got \"" + t.device + "\"");
  }
  t.threads = f.integer("threads", t.threads, 0, 1024);
  t.batch_mode = f.choice("batch_mode", t.batch_mode, {"padded", "packed"});
  t.padding_side = f.choice("padding_side", t.padding_side, {"left", "right"});
  f.rejectUnknownKeys();
  if (t.max_steps == 0 && t.max_tokens == 0 && t.max_wall_s == 0) {
    f.fail("max_steps", "no budget set", "set max_steps, max_tokens or max_wall_s (or pass --max-steps)");
  }
  return t;
}

}  // namespace

nlohmann::json RunConfig::toJson() const { return {{"name", name}, {"model", model.toJson()}, {"train", train.toJson()}}; }

const RunConfig& ProjectConfig::run(const std::string& run_name) const {
  std::string names;
  for (const auto& r : runs) {
    if (r.name == run_name) return r;
    names += (names.empty() ? "" : ", ") + r.name;
  }
  throw MixerLabError(file.string() + ": no run named \"" + run_name + "\"", "use one of: " + names);
}

nlohmann::json ProjectConfig::toJson() const {
  nlohmann::json run_list = nlohmann::json::array();
  for (const auto& r : runs) run_list.push_back(r.toJson());
  nlohmann::json j = {{"name", name},
          {"description", description},
          {"corpus",
           {{"train", corpus.train_path.string()},
            {"format", corpusFormatName(corpus.format)},
            {"eval_fraction", corpus.eval_fraction},
            {"split_seed", corpus.split_seed}}},
          {"tokenizer",
           {{"vocab_size", tokenizer.vocab_size},
            {"model_type", tokenizer.model_type},
            {"byte_fallback", tokenizer.byte_fallback},
            {"character_coverage", tokenizer.character_coverage},
            {"max_training_documents", tokenizer.max_training_documents}}},
          {"runs", run_list}};
  if (!corpus.eval_path.empty()) j["corpus"]["eval"] = corpus.eval_path.string();
  return j;
}

ProjectConfig projectFromCheckpointConfig(const nlohmann::json& checkpoint_config, const std::filesystem::path& source) {
  nlohmann::json document = checkpoint_config.at("project");
  document["runs"] = nlohmann::json::array({checkpoint_config.at("run")});
  return parseProject(document, source);
}

ProjectConfig parseProject(const nlohmann::json& document, const fs::path& path) {
  ProjectConfig p;
  p.file = fs::absolute(path);
  const std::string source = path.string();
  JsonFields top(document, source, "");
  p.name = top.string("name", p.file.parent_path().filename().string());
  p.description = top.string("description", "");

  JsonFields corpus = top.object("corpus");
  const fs::path base = p.directory();
  p.corpus.train_path = resolvePath(base, corpus.requiredString("train"));
  if (corpus.has("eval")) p.corpus.eval_path = resolvePath(base, corpus.string("eval", ""));
  const std::string format = corpus.choice("format", "auto", {"auto", "endoftext", "blank_line", "jsonl"});
  p.corpus.format = parseCorpusFormat(format);
  p.corpus.eval_fraction = corpus.number("eval_fraction", p.corpus.eval_fraction, 0.0, 0.9);
  p.corpus.split_seed = static_cast<uint64_t>(corpus.integer("split_seed", 1234, 0, kMaxInt));
  corpus.rejectUnknownKeys();
  if (!fs::exists(p.corpus.train_path)) {
    corpus.fail("train", "file " + p.corpus.train_path.string() + " does not exist",
                "relative paths are resolved against " + base.string());
  }
  if (!p.corpus.eval_path.empty() && !fs::exists(p.corpus.eval_path)) {
    corpus.fail("eval", "file " + p.corpus.eval_path.string() + " does not exist",
                "relative paths are resolved against " + base.string());
  }

  JsonFields tok = top.object("tokenizer");
  p.tokenizer.vocab_size = static_cast<int>(tok.integer("vocab_size", p.tokenizer.vocab_size, 64, 1 << 20));
  p.tokenizer.model_type = tok.choice("model_type", p.tokenizer.model_type, {"bpe", "unigram"});
  p.tokenizer.byte_fallback = tok.boolean("byte_fallback", p.tokenizer.byte_fallback);
  p.tokenizer.character_coverage = tok.number("character_coverage", p.tokenizer.character_coverage, 0.9, 1.0);
  p.tokenizer.max_training_documents =
      tok.integer("max_training_documents", p.tokenizer.max_training_documents, 1, kMaxInt);
  tok.rejectUnknownKeys();

  JsonFields defaults = top.object("defaults");
  defaults.accept("model");
  defaults.accept("train");
  defaults.rejectUnknownKeys();
  top.accept("runs");
  top.rejectUnknownKeys();

  if (!document.contains("runs") || !document.at("runs").is_array() || document.at("runs").empty()) {
    top.fail("runs", "expected a non-empty array of runs", "add at least one {\"name\": ..., \"model\": {...}, \"train\": {...}}");
  }
  std::set<std::string> seen;
  const auto& run_array = document.at("runs");
  for (size_t i = 0; i < run_array.size(); ++i) {
    const std::string run_path = "runs[" + std::to_string(i) + "]";
    JsonFields run(run_array[i], source, run_path);
    RunConfig rc;
    rc.name = run.requiredString("name");
    for (char c : rc.name) {
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) {
        run.fail("name", "\"" + rc.name + "\" may only contain letters, digits, '-', '_' and '.' (it names a folder)");
      }
    }
    if (!seen.insert(rc.name).second) run.fail("name", "duplicate run name \"" + rc.name + "\"");
    run.accept("model");
    run.accept("train");
    run.rejectUnknownKeys();
    const nlohmann::json& raw_defaults = defaults.raw();
    rc.model = parseModel(JsonFields(runSectionWithDefaults(raw_defaults, run_array[i], "model"), source, run_path + ".model"),
                          p.tokenizer.vocab_size);
    rc.train = parseTrain(JsonFields(runSectionWithDefaults(raw_defaults, run_array[i], "train"), source, run_path + ".train"));
    p.runs.push_back(rc);
  }
  return p;
}

ProjectConfig loadProject(const fs::path& path) {
  if (!fs::exists(path)) {
    throw MixerLabError("project file " + path.string() + " does not exist",
                        "pass the path of a project.json, e.g. projects/demo/project.json");
  }
  const std::string text = readFile(path);
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte is the 1-based offset of the error; turn it into line:column for the user.
    size_t line = 1, column = 1;
    for (size_t i = 0; i + 1 < e.byte && i < text.size(); ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    throw MixerLabError(path.string() + ":" + std::to_string(line) + ":" + std::to_string(column) +
                            ": malformed JSON: " + e.what(),
                        "fix the JSON syntax at that position (trailing commas and comments are not allowed)");
  }
  return parseProject(document, path);
}

}  // namespace mixerlab
