// Project file loading and validation (see project_config.h).
#include "core/config/project_config.h"

#include <glob.h>

#include <limits>
#include <set>

#include "core/config/project_fields.h"
#include "core/config/run_defaults.h"
#include "core/models/model_fields.h"
#include "core/models/model_registry.h"
#include "core/models/objectives.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/folder_name.h"
#include "core/util/json_document.h"
#include "core/util/json_fields.h"
#include "core/util/text.h"

namespace mixerlab {
namespace fs = std::filesystem;

namespace {

// A corpus input exists when it is a file or folder, or a glob pattern that matches something.
bool corpusInputExists(const fs::path& input) {
  std::error_code ec;
  if (fs::exists(input, ec)) return true;
  if (input.string().find_first_of("*?[") == std::string::npos) return false;
  glob_t matches{};
  const bool found = ::glob(input.c_str(), 0, nullptr, &matches) == 0 && matches.gl_pathc > 0;
  ::globfree(&matches);
  return found;
}

fs::path resolvePath(const fs::path& base, const std::string& value) {
  fs::path p(value);
  return p.is_absolute() ? p : fs::weakly_canonical(base / p);
}

ModelConfig parseModel(JsonFields f, int64_t vocab_size) {
  ModelConfig m;
  m.vocab_size = vocab_size;  // follows the tokenizer unless given
  modelFields().readInto(f, m);
  if (m.vocab_size != vocab_size) {
    f.fail("vocab_size",
           "is " + std::to_string(m.vocab_size) + " but the tokenizer's vocab_size is " + std::to_string(vocab_size),
           "omit model.vocab_size (it follows the tokenizer) or make them equal");
  }
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
  trainFields().readInto(f, t);
  if (!isDeviceName(t.device)) {
    f.fail("device", std::string("expected ") + kDeviceNames + ", got \"" + abbreviated(t.device) + "\"");
  }
  f.rejectUnknownKeys();
  if (t.max_steps == 0 && t.max_tokens == 0 && t.max_wall_s == 0) {
    f.fail("max_steps", "no budget set", "set max_steps, max_tokens or max_wall_s (or pass --max-steps)");
  }
  if (t.schedule_horizon == "epochs" && (t.schedule_epochs <= 0 || t.schedule_steps > 0)) {
    f.fail("schedule_horizon",
           t.schedule_steps > 0 ? "\"epochs\" with schedule_steps set: the horizon would be schedule_steps"
                                : "\"epochs\" with schedule_epochs 0: the decay would span no epochs",
           t.schedule_steps > 0 ? "set schedule_steps to 0, or schedule_horizon to \"budget\""
                                : "set schedule_epochs above 0, or schedule_horizon to \"budget\"");
  }
  return t;
}

}  // namespace

nlohmann::json RunConfig::toJson() const {
  nlohmann::json j = runFields().write(*this);
  j["model"] = model.toJson();
  j["train"] = train.toJson();
  return j;
}

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
  nlohmann::json j = projectFields().write(*this);
  j["corpus"] = corpusFields().write(corpus);
  j["tokenizer"] = tokenizerFields().write(tokenizer);
  j["runs"] = run_list;
  return j;
}

ProjectConfig projectFromCheckpointConfig(const nlohmann::json& checkpoint_config,
                                          const std::filesystem::path& source) {
  nlohmann::json document = checkpoint_config.at("project");
  nlohmann::json run = checkpoint_config.at("run");
  if (run.is_object() && run.contains("train")) run["train"] = TrainConfig::completeStored(run.at("train"));
  document["runs"] = nlohmann::json::array({run});
  return parseProject(document, source);
}

ProjectConfig parseProject(const nlohmann::json& document, const fs::path& path, CorpusFiles corpus_files) {
  ProjectConfig p;
  p.file = fs::absolute(path);
  const std::string source = path.string();
  JsonFields top(document, source, "");
  p.name = p.file.parent_path().filename().string();
  projectFields().readInto(top, p);

  JsonFields corpus = top.object("corpus");
  const fs::path base = p.directory();
  corpusFields().readInto(corpus, p.corpus);
  corpus.rejectUnknownKeys();
  p.corpus.train_path = resolvePath(base, p.corpus.train_path.string());
  if (!p.corpus.eval_path.empty()) p.corpus.eval_path = resolvePath(base, p.corpus.eval_path.string());
  const bool check_files = corpus_files == CorpusFiles::MustExist;
  if (check_files && !corpusInputExists(p.corpus.train_path)) {
    corpus.fail("train", "file " + p.corpus.train_path.string() + " does not exist (or the glob matches nothing)",
                "relative paths are resolved against " + base.string());
  }
  if (check_files && !p.corpus.eval_path.empty() && !corpusInputExists(p.corpus.eval_path)) {
    corpus.fail("eval", "file " + p.corpus.eval_path.string() + " does not exist (or the glob matches nothing)",
                "relative paths are resolved against " + base.string());
  }

  JsonFields tok = top.object("tokenizer");
  tokenizerFields().readInto(tok, p.tokenizer);
  tok.rejectUnknownKeys();
  if (!p.tokenizer.file.empty()) {
    p.tokenizer.file = resolvePath(base, p.tokenizer.file).string();
    if (check_files && !fs::exists(p.tokenizer.file)) {
      tok.fail("file", "file " + p.tokenizer.file + " does not exist",
               "relative paths are resolved against " + base.string());
    }
  }

  JsonFields defaults = top.object("defaults");
  defaults.accept("model");
  defaults.accept("train");
  defaults.rejectUnknownKeys();
  top.accept("runs");
  top.rejectUnknownKeys();

  if (!document.contains("runs") || !document.at("runs").is_array() || document.at("runs").empty()) {
    top.fail("runs", "expected a non-empty array of runs",
             "add at least one {\"name\": ..., \"model\": {...}, \"train\": {...}}");
  }
  std::set<std::string> seen;
  const auto& run_array = document.at("runs");
  for (size_t i = 0; i < run_array.size(); ++i) {
    const std::string run_path = "runs[" + std::to_string(i) + "]";
    JsonFields run(run_array[i], source, run_path);
    RunConfig rc;
    runFields().readInto(run, rc);
    if (const std::string problem = folderNameProblem(rc.name); !problem.empty()) {
      run.fail("name", "\"" + rc.name + "\" " + problem);
    }
    if (!seen.insert(rc.name).second) run.fail("name", "duplicate run name \"" + abbreviated(rc.name) + "\"");
    run.accept("model");
    run.accept("train");
    run.rejectUnknownKeys();
    const nlohmann::json& raw_defaults = defaults.raw();
    rc.model =
        parseModel(JsonFields(runSectionWithDefaults(raw_defaults, run_array[i], "model"), source, run_path + ".model"),
                   p.tokenizer.vocab_size);
    rc.train = parseTrain(
        JsonFields(runSectionWithDefaults(raw_defaults, run_array[i], "train"), source, run_path + ".train"));
    p.runs.push_back(rc);
  }
  return p;
}

ProjectConfig parseProjectText(const std::string& text, const fs::path& path, CorpusFiles corpus_files) {
  const nlohmann::json document = parseJsonDocument(text, path);  // errors carry line:column
  return parseProject(document, path, corpus_files);
}

ProjectConfig loadProject(const fs::path& path, CorpusFiles corpus_files) {
  if (!fs::exists(path)) {
    throw MixerLabError("project file " + path.string() + " does not exist",
                        "pass the path of a project.json, e.g. projects/demo/project.json");
  }
  return parseProjectText(readFile(path), path, corpus_files);
}

}  // namespace mixerlab
