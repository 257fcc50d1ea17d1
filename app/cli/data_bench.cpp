// `mixerlab bench data`: the data path at a chosen corpus size. Generates a TinyStories-like corpus
// (sentences of the demo stories recombined with a seeded generator, so the text is real children's
// prose and no document repeats), then times each stage in its own child process so its peak resident
// set is its own: tokenizer training on the streamed sample, shard preparation on every core, and
// single-thread encoding beside the sentencepiece Python package on the same text and tokenizer.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <random>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "app/cli/cli_commands.h"
#include "core/analysis/format.h"
#include "core/data/corpus_reader.h"
#include "core/data/data_manifest.h"
#include "core/runs/demo_project.h"
#include "core/util/error.h"
#include "core/util/subprocess.h"

namespace mixerlab::cli {
namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

struct DataBenchOptions {
  double size_mb = 100;
  std::string dir = "/tmp/mixerlab-bench-data";
  int64_t vocab = 4096;
  int64_t memory_mb = 2048;
  int64_t reference_mb = 50;  // text encoded single-threaded by both MixerLab and sentencepiece's Python package
  bool keep = false;
};

struct StageFigures {
  std::string name;
  double seconds = 0;
  uint64_t bytes = 0, tokens = 0;
  int64_t max_rss_bytes = 0;
};

void printStage(const StageFigures& s) {
  const double mb_per_s = s.seconds > 0 ? static_cast<double>(s.bytes) / (1 << 20) / s.seconds : 0;
  const double tokens_per_s = s.seconds > 0 ? static_cast<double>(s.tokens) / s.seconds : 0;
  std::printf("%-34s %9.1f %10.1f %14s %12s\n", s.name.c_str(), s.seconds, mb_per_s,
              s.tokens > 0 ? (std::to_string(static_cast<int64_t>(tokens_per_s / 1000)) + "k").c_str() : "-",
              s.max_rss_bytes > 0 ? formatBytes(static_cast<double>(s.max_rss_bytes)).c_str() : "-");
  std::fflush(stdout);
}

// Sentences of the demo stories, the material of the generated corpus.
std::vector<std::string> demoSentences() {
  std::vector<std::string> sentences;
  const fs::path project = demoProjectFile(currentExecutable());
  for (const fs::path& path : {project.parent_path() / "data/stories-b.txt"}) {
    std::error_code ec;
    if (project.empty() || !fs::is_regular_file(path, ec)) continue;
    for (const std::string& story : readCorpus(path)) {
      size_t start = 0;
      while (start < story.size()) {
        size_t end = story.find_first_of(".!?", start);
        end = end == std::string::npos ? story.size() : end + 1;
        std::string sentence = story.substr(start, end - start);
        while (!sentence.empty() && (sentence.front() == ' ' || sentence.front() == '\n')) sentence.erase(0, 1);
        if (sentence.size() > 3) sentences.push_back(sentence);
        start = end;
      }
    }
    break;
  }
  if (sentences.empty()) {
    throw MixerLabError("bench data: the demo stories (projects/demo/data/stories-b.txt) were not found",
                        "run it from the source checkout's folder, or install the package");
  }
  return sentences;
}

StageFigures generateCorpus(const fs::path& path, uint64_t bytes) {
  const auto start = Clock::now();
  const std::vector<std::string> sentences = demoSentences();
  std::mt19937_64 rng(20231101);
  std::uniform_int_distribution<size_t> pick(0, sentences.size() - 1), length(5, 12);
  std::ofstream out(path, std::ios::binary);
  std::string story;
  uint64_t written = 0;
  while (written < bytes) {
    story.clear();
    for (size_t n = length(rng); n > 0; --n) (story += sentences[pick(rng)]) += ' ';
    story.back() = '\n';
    story += '\n';
    out << story;
    written += story.size();
  }
  out.close();
  if (!out) throw MixerLabError("bench data: cannot write " + path.string(), "check --dir and free disk space");
  return {"generate corpus", std::chrono::duration<double>(Clock::now() - start).count(), written, 0, 0};
}

// Runs a mixerlab command as a child, timing it and reading its peak resident set.
StageFigures runStage(const std::string& name, const std::vector<std::string>& args) {
  SubprocessSpec spec;
  spec.program = currentExecutable();
  spec.args = args;
  spec.stdout_to = ChildOutput::kPipe;
  spec.stderr_to = ChildOutput::kPipe;
  const auto start = Clock::now();
  const CapturedRun run = spawn(spec).collect(0);
  StageFigures figures{name, std::chrono::duration<double>(Clock::now() - start).count(), 0, 0, run.max_rss_bytes};
  if (!run.succeeded()) {
    throw MixerLabError("bench data: stage \"" + name + "\" " + describeExit(run) + ": " + run.err + run.out,
                        "see the message above");
  }
  return figures;
}

fs::path writeProject(const fs::path& dir, const fs::path& corpus, const fs::path& tokenizer, int64_t vocab,
                      int64_t memory_mb) {
  const nlohmann::json project = {
      {"corpus",
       {{"train", corpus.string()}, {"format", "blank_line"}, {"eval_documents", 100}, {"memory_mb", memory_mb}}},
      {"tokenizer", {{"vocab_size", vocab}, {"file", tokenizer.string()}}},
      {"runs",
       {{{"name", "mixer"},
         {"model", {{"arch", "masked_mixer"}, {"d_model", 64}, {"n_layers", 1}}},
         {"train", {{"max_steps", 1}}}}}}};
  fs::create_directories(dir);
  std::ofstream(dir / "project.json") << project.dump(2);
  return dir / "project.json";
}

// Prepares `corpus` into a fresh cache; the figures read the manifest it published.
StageFigures prepareStage(const std::string& name, const fs::path& dir, const fs::path& corpus,
                          const fs::path& tokenizer, const DataBenchOptions& o, const std::vector<std::string>& extra) {
  std::error_code ec;
  fs::remove_all(dir, ec);
  const fs::path project = writeProject(dir, corpus, tokenizer, o.vocab, o.memory_mb);
  std::vector<std::string> args{"data", "prepare", project.string()};
  args.insert(args.end(), extra.begin(), extra.end());
  StageFigures figures = runStage(name, args);
  for (const auto& entry : fs::directory_iterator(dir / "cache")) {
    if (const auto manifest = readDataManifest(manifestFile(entry.path()))) {
      figures.bytes = manifest->text_bytes;
      figures.tokens = manifest->tokens;
    }
  }
  return figures;
}

// Encodes the reference text with the sentencepiece Python package in one thread (nullopt: not installed).
std::optional<StageFigures> pythonReference(const fs::path& corpus, const fs::path& tokenizer) {
  const std::string script =
      "import sys, time, sentencepiece as spm\n"
      "sp = spm.SentencePieceProcessor(model_file=sys.argv[2])\n"
      "docs = [d.strip() for d in open(sys.argv[1], encoding='utf-8').read().split('\\n\\n') if d.strip()]\n"
      "t = time.perf_counter(); n = sum(len(sp.encode(d)) for d in docs); s = time.perf_counter() - t\n"
      "print(n, s, sum(len(d.encode()) for d in docs))\n";
  // Debian's python3 first: python3-sentencepiece installs there, not into other interpreters on PATH.
  std::error_code ec;
  const std::string python = fs::exists("/usr/bin/python3", ec) ? "/usr/bin/python3" : "python3";
  SubprocessSpec spec = commandSpec({python, "-c", script, corpus.string(), tokenizer.string()});
  spec.stdout_to = ChildOutput::kPipe;
  spec.stderr_to = ChildOutput::kPipe;
  const CapturedRun run = spawn(spec).collect(0);
  if (!run.succeeded()) return std::nullopt;
  StageFigures figures{"encode, sentencepiece Python, 1 thread", 0, 0, 0, run.max_rss_bytes};
  unsigned long long tokens = 0, bytes = 0;
  if (std::sscanf(run.out.c_str(), "%llu %lf %llu", &tokens, &figures.seconds, &bytes) != 3) return std::nullopt;
  figures.tokens = tokens;
  figures.bytes = bytes;
  return figures;
}

// The first `bytes` of the corpus, cut at a document boundary.
fs::path referenceSlice(const fs::path& corpus, const fs::path& out, uint64_t bytes) {
  std::ifstream in(corpus, std::ios::binary);
  std::ofstream slice(out, std::ios::binary);
  std::string line;
  uint64_t written = 0;
  while (std::getline(in, line)) {
    slice << line << '\n';
    written += line.size() + 1;
    if (written >= bytes && line.empty()) break;
  }
  return out;
}

int runDataBench(const DataBenchOptions& o) {
  const fs::path dir = o.dir;
  fs::create_directories(dir);
  const fs::path corpus = dir / "corpus.txt";
  const auto bytes = static_cast<uint64_t>(o.size_mb * (1 << 20));
  std::printf("bench data: a %.0f MB TinyStories-like corpus in %s, vocabulary %lld, memory bound %lld MB\n", o.size_mb,
              dir.string().c_str(), static_cast<long long>(o.vocab), static_cast<long long>(o.memory_mb));
  std::printf("%-34s %9s %10s %14s %12s\n", "stage", "seconds", "MB/s", "tokens/s", "peak RSS");
  printStage(generateCorpus(corpus, bytes));

  const fs::path tokenizer = dir / "tokenizer.model";
  StageFigures tok =
      runStage("tokenizer (streamed sample)", {"tokenizer", "train", "--corpus", corpus.string(), "--vocab-size",
                                               std::to_string(o.vocab), "--out", tokenizer.string()});
  tok.bytes = bytes;
  printStage(tok);
  printStage(prepareStage("prepare shards, every core", dir / "prepare", corpus, tokenizer, o, {}));

  const fs::path slice = referenceSlice(corpus, dir / "reference.txt", static_cast<uint64_t>(o.reference_mb) << 20);
  printStage(prepareStage("encode, MixerLab, 1 thread", dir / "reference", slice, tokenizer, o, {"--threads", "1"}));
  if (const auto reference = pythonReference(slice, tokenizer)) {
    printStage(*reference);
  } else {
    std::printf("%-34s skipped: python3 with the sentencepiece package (python3-sentencepiece) not found\n",
                "encode, sentencepiece Python");
  }
  if (!o.keep) fs::remove_all(dir);
  return 0;
}

}  // namespace

void addDataBench(CLI::App& bench, Action& action) {
  auto o = std::make_shared<DataBenchOptions>();
  auto* data =
      bench.add_subcommand("data",
                           "The data path on a generated corpus: tokenizer training, shard preparation and "
                           "single-thread encoding vs sentencepiece's Python package (MB/s, tokens/s, peak RSS)");
  data->add_option("--size-mb", o->size_mb, "Corpus size in MB (default 100)")->check(CLI::Range(1.0, 1e6));
  data->add_option("--dir", o->dir, "Scratch folder (removed afterwards unless --keep)");
  data->add_option("--vocab", o->vocab, "Tokenizer vocabulary (default 4096)")->check(CLI::Range(256, 1 << 20));
  data->add_option("--memory-mb", o->memory_mb, "corpus.memory_mb of the preparation (default 2048)")
      ->check(CLI::Range(256, 1 << 20));
  data->add_option("--reference-mb", o->reference_mb, "Text encoded single-threaded by both (default 50)")
      ->check(CLI::Range(1, 1 << 20));
  data->add_flag("--keep", o->keep, "Keep the scratch folder");
  data->callback([o, &action] { action = [o] { return runDataBench(*o); }; });
}

}  // namespace mixerlab::cli
