// `mixerlab data prepare | list | prune`: a project's corpus tokenized into shards ahead of training
// (the same preparation a run does at its start), and the prepared data of its cache folder.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <set>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "app/cli/cli_commands.h"
#include "app/cli/stop_signal.h"
#include "core/analysis/format.h"
#include "core/config/project_config.h"
#include "core/data/preparation_lock.h"
#include "core/data/prepared_data_folders.h"
#include "core/data/token_cache.h"
#include "core/train/project_data.h"

namespace mixerlab::cli {
namespace fs = std::filesystem;

namespace {
struct DataOptions {
  std::string project;
  std::string run;
  unsigned threads = 0;
  uint64_t shard_tokens = 0;
  bool dry_run = false;
  bool progress_json = false;  // one JSON object per progress report on stdout (the workbench reads them)
};

// {"stage", "done_bytes", "total_bytes", "documents", "tokens", "elapsed_s"}, at most 4 a second.
std::function<void(const PrepareProgress&)> jsonProgressPrinter() {
  auto last = std::make_shared<std::chrono::steady_clock::time_point>();
  return [last](const PrepareProgress& p) {
    const auto now = std::chrono::steady_clock::now();
    if (now - *last < std::chrono::milliseconds(250) && p.source_bytes_done < p.source_bytes_total) return;
    *last = now;
    std::cout << nlohmann::json{{"stage", p.stage},
                                {"done_bytes", p.source_bytes_done},
                                {"total_bytes", p.source_bytes_total},
                                {"documents", p.documents},
                                {"tokens", p.tokens},
                                {"elapsed_s", p.elapsed_s}}
                     .dump()
              << std::endl;
  };
}

void printShards(const char* what, const fs::path& folder) {
  const TokenCache cache = TokenCache::open(folder);
  std::printf("%s: %zu documents, %zu tokens in %zu shard(s) of %u-bit ids, %s (%s)\n", what, cache.numDocuments(),
              cache.numTokens(), cache.numShards(), cache.tokenBytes() * 8, formatBytes(cache.fileBytes()).c_str(),
              folder.string().c_str());
}

int prepareCommand(const DataOptions& o) {
  const ProjectConfig project = loadProject(o.project);
  // One preparation per newline convention the runs use (the shards differ), for one run or all.
  std::set<std::string> newlines;
  if (!o.run.empty()) {
    newlines.insert(project.run(o.run).train.newline);
  } else {
    for (const RunConfig& run : project.runs) newlines.insert(run.train.newline);
  }
  if (newlines.empty()) newlines.insert("token");
  installStopSignalHandlers();
  for (const std::string& newline : newlines) {
    ProjectDataOptions options;
    options.newline = parseNewlineMode(newline);
    options.threads = o.threads;
    options.shard_tokens = o.shard_tokens;
    options.stop = &stopRequested();
    options.log = [](const std::string& line) { std::cout << line << std::endl; };
    if (o.progress_json) options.on_progress = jsonProgressPrinter();
    PreparedProjectData prepared;
    try {
      prepared = prepareProjectData(project, options);
    } catch (const PreparationStopped& e) {
      std::cout << "stopped: " << e.what() << "; finished shards are kept, run the command again to continue\n";
      return 0;
    }
    std::cout << "tokenizer: " << prepared.tokenizer_path.string() << "\n";
    printShards(("train (newline " + newline + ")").c_str(), prepared.train_data);
    if (!prepared.eval_data.empty()) printShards(("eval (newline " + newline + ")").c_str(), prepared.eval_data);
  }
  return 0;
}

int listCommand(const DataOptions& o, bool prune) {
  const ProjectConfig project = loadProject(o.project, CorpusFiles::MayBeMissing);
  const fs::path cache_dir = project.cacheDirectory();
  const auto entries = prune && !o.dry_run ? pruneStalePreparedData(cache_dir) : listPreparedData(cache_dir);
  uint64_t total = 0;
  for (const PreparedDataEntry& e : entries) {
    if (prune && e.state != PreparedDataState::Stale && e.state != PreparedDataState::OldFormat) continue;
    total += e.bytes;
    std::printf("%-12s %10s  %s", preparedDataStateName(e.state).c_str(), formatBytes(e.bytes).c_str(),
                e.path.filename().string().c_str());
    if (e.manifest) {
      std::printf("  %llu documents, %llu tokens, %zu shard(s), %zu file(s) from %s",
                  static_cast<unsigned long long>(e.manifest->documents),
                  static_cast<unsigned long long>(e.manifest->tokens), e.manifest->shards.size(),
                  e.manifest->sources.size(),
                  e.manifest->sources.empty() ? "-" : e.manifest->sources.front().path.c_str());
    }
    if (!e.reason.empty()) std::printf("  (%s)", e.reason.c_str());
    std::printf("\n");
  }
  if (prune) {
    std::printf("%s %s in %s\n", o.dry_run ? "would remove" : "removed", formatBytes(total).c_str(),
                cache_dir.string().c_str());
  } else if (entries.empty()) {
    std::printf("no prepared data in %s (mixerlab data prepare %s prepares it)\n", cache_dir.string().c_str(),
                o.project.c_str());
  }
  return 0;
}
}  // namespace

void addDataCommands(CLI::App& app, Action& action) {
  auto* data = app.add_subcommand("data", "Prepare a project's corpus as token shards; list or prune prepared data");
  data->require_subcommand(1);
  auto o = std::make_shared<DataOptions>();

  auto* prepare = data->add_subcommand(
      "prepare", "Train the tokenizer and tokenize the corpus into shards (resumes a stopped preparation)");
  prepare->add_option("project", o->project, "project.json")->required()->check(CLI::ExistingFile);
  prepare->add_option("--run", o->run, "Prepare for this run's newline convention only (default: every run's)");
  prepare->add_option("--threads", o->threads, "Encoding threads (default: every core)");
  prepare->add_flag("--progress-json", o->progress_json, "Print progress as JSON lines (for the workbench)");
  prepare->add_option("--shard-tokens", o->shard_tokens, "Tokens per shard (default 67108864)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 40));
  prepare->callback([o, &action] { action = [o] { return prepareCommand(*o); }; });

  auto* list = data->add_subcommand("list", "List the prepared data of a project's cache folder and its state");
  list->add_option("project", o->project, "project.json")->required()->check(CLI::ExistingFile);
  list->callback([o, &action] { action = [o] { return listCommand(*o, false); }; });

  auto* prune = data->add_subcommand("prune", "Remove prepared data whose corpus or tokenizer changed");
  prune->add_option("project", o->project, "project.json")->required()->check(CLI::ExistingFile);
  prune->add_flag("--dry-run", o->dry_run, "Only list what would be removed");
  prune->callback([o, &action] { action = [o] { return listCommand(*o, true); }; });
}

}  // namespace mixerlab::cli
