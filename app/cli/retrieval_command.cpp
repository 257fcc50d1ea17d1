// `mixerlab retrieval build | train | eval | query` (docs/retrieval.md): embed (summary, story) pairs with a
// checkpoint, train the research's retrieval model on them, measure top-1 / top-5 on held-out
// pairs (trained model or plain cosine similarity), and rank stories for a typed summary. The
// algorithms live in core/analysis/retrieval/; this file parses and prints.
#include <atomic>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <functional>
#include <iostream>
#include <utility>
#include <vector>

#include <torch/torch.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "app/cli/cli_commands.h"
#include "core/analysis/analysis_model.h"
#include "core/analysis/retrieval/cosine_retrieval.h"
#include "core/analysis/retrieval/infonce_finetune.h"
#include "core/analysis/retrieval/retrieval_corpus.h"
#include "core/analysis/retrieval/retrieval_dataset.h"
#include "core/analysis/retrieval/retrieval_run.h"
#include "core/analysis/retrieval/retrieval_training.h"
#include "core/models/safetensors.h"
#include "core/runs/retrieval_run_record.h"
#include "core/util/error.h"

namespace mixerlab::cli {
namespace {
namespace fs = std::filesystem;

// Where the pairs come from, for `build` and `finetune`: exactly one of a pairs file, N synthetic
// stories, or a corpus of stories (each paired with its opening sentence).
struct PairsOptions {
  std::string pairs, stories, format = "auto", json_field = "text";
  int64_t synthetic = 0, max_stories = RetrievalCorpus{}.max_stories;
  uint64_t seed = 1;

  RetrievalCorpus corpus() const {
    const int given = (pairs.empty() ? 0 : 1) + (synthetic == 0 ? 0 : 1) + (stories.empty() ? 0 : 1);
    if (given != 1) throw MixerLabError("give exactly one of --pairs FILE, --synthetic N or --stories CORPUS");
    if (!pairs.empty()) return RetrievalCorpus::file(pairs);
    if (synthetic != 0) return RetrievalCorpus::synthetic(synthetic, seed);
    return RetrievalCorpus::stories(stories, parseCorpusFormat(format), json_field, max_stories);
  }
};

void addPairsOptions(CLI::App* command, PairsOptions& o, const std::string& seed_option) {
  command->add_option("--pairs", o.pairs, "JSON Lines of {\"summary\", \"story\"}");
  command->add_option("--synthetic", o.synthetic, "Generate N synthetic story pairs instead");
  command->add_option(seed_option, o.seed, "Seed of the synthetic stories (1)");
  command->add_option("--stories", o.stories,
                      "Or a corpus of stories without summaries (a file, folder or glob, as a project's corpus): each "
                      "story's opening sentence is its query");
  command->add_option("--max-stories", o.max_stories, "With --stories: read the first N usable stories (2000)");
  command->add_option("--format", o.format, "With --stories: auto, endoftext, blank_line or jsonl (auto)");
  command->add_option("--json-field", o.json_field, "With --stories in JSON Lines: the text field (text)");
}

struct BuildOptions {
  std::string checkpoint, out, device = "cpu";
  PairsOptions source;
  int64_t from_end = -1;
  double test_fraction = 0.1;
  bool untrained = false;
  bool after_final_norm = false;
};

int retrievalBuildCommand(const BuildOptions& o) {
  const auto pairs = o.source.corpus().pairs();
  const ModelSource source =
      o.untrained ? ModelSource::untrainedLike(o.checkpoint) : ModelSource::checkpoint(o.checkpoint);
  EmbeddingSettings embedding;
  embedding.from_end = o.from_end;
  embedding.after_final_norm = o.after_final_norm;
  embedding.device = o.device;
  const auto d = buildRetrievalDataset(source, pairs, o.test_fraction, embedding, o.out, [](size_t done, size_t total) {
    std::fprintf(stderr, "\rembedded %zu/%zu texts", done, total);
  });
  std::fprintf(stderr, "\n");
  std::printf("%s: %zu pairs (%lld train, %lld held out), embeddings of width %lld from %s\n", o.out.c_str(),
              pairs.size(), static_cast<long long>(d.train_count), static_cast<long long>(d.query_test.size(0)),
              static_cast<long long>(d.query_train.size(1)), d.model_label.c_str());
  return 0;
}

struct RetrievalTrainOptions {
  std::string data, out;
  RetrievalTrainSettings settings;
};

std::atomic<bool> g_retrieval_stop{false};
void onRetrievalStopSignal(int) { g_retrieval_stop.store(true); }

int retrievalTrainCommand(const RetrievalTrainOptions& o) {
  {
    const RetrievalDataset d = loadRetrievalDataset(o.data);  // for the header; the run loads it again
    std::printf("retrieval model: c=%lld (chance top-1 %.3f), %lld layers, %lld train / %lld held-out pairs, D=%lld\n",
                static_cast<long long>(o.settings.context), 1.0 / static_cast<double>(o.settings.context - 1),
                static_cast<long long>(o.settings.layers), static_cast<long long>(d.query_train.size(0)),
                static_cast<long long>(d.query_test.size(0)), static_cast<long long>(d.query_train.size(1)));
  }
  RetrievalRunRequest request;
  request.data_dir = o.data;
  request.run_dir = o.out;
  request.settings = o.settings;
  request.cancel = &g_retrieval_stop;  // SIGINT / SIGTERM (the workbench's Stop): "stopped" after the batch
  std::signal(SIGINT, onRetrievalStopSignal);
  std::signal(SIGTERM, onRetrievalStopSignal);
  request.on_epoch = [](const RetrievalEpoch& e) {
    std::printf("epoch %3lld step %6lld  train CE %.4f  held-out CE %.4f  top-1 %.3f  top-5 %.3f\n",
                static_cast<long long>(e.epoch), static_cast<long long>(e.step), e.train_loss, e.eval_loss, e.eval_top1,
                e.eval_top5);
    std::fflush(stdout);
  };
  const RetrievalRunRecord record = runRetrievalTraining(request);
  double lowest = 0, lowest_top1 = 0;
  int64_t lowest_epoch = 0;
  for (const auto& e : record.epochs) {  // the research's metric: the lowest held-out CE over the epochs
    if (lowest_epoch == 0 || e.at("eval_loss").get<double>() < lowest) {
      lowest = e.at("eval_loss").get<double>();
      lowest_top1 = e.at("top1").get<double>();
      lowest_epoch = e.at("epoch").get<int64_t>();
    }
  }
  if (lowest_epoch > 0) {
    std::printf("lowest held-out CE %.4f at epoch %lld (top-1 %.3f)\n", lowest, static_cast<long long>(lowest_epoch),
                lowest_top1);
  }
  return 0;
}

struct EvalOptions {
  std::string data, model;
  int64_t context = 32;
  uint64_t seed = 2;
  bool json = false;
};

int retrievalEvalCommand(const EvalOptions& o) {
  const RetrievalDataset d = loadRetrievalDataset(o.data);
  RetrievalEpoch e;
  std::string method = "cosine";
  int64_t context = o.context;
  if (!o.model.empty()) {
    const auto info = tryReadRetrievalRunRecord(o.model);
    if (!info)
      throw MixerLabError(o.model + " holds no readable retrieval_run.json", "pass a folder of `retrieval train`");
    context = info->context;
    RetrievalMixer model(context, info->width, info->layers);
    loadIntoModule(*model, loadSafetensors(fs::path(o.model) / "retrieval_model.safetensors"),
                   o.model + "/retrieval_model.safetensors");
    e = evaluateRetrievalModel(model, d.query_test, d.target_test, context, o.seed);
    method = "retrieval_model";
  } else {
    e = evaluateCosineRetrieval(d.query_test, d.target_test, context, o.seed);
  }
  const nlohmann::json out = {{"method", method},
                              {"embedding_model", d.model_label},
                              {"top1", e.eval_top1},
                              {"top5", e.eval_top5},
                              {"cross_entropy", e.eval_loss},
                              {"candidates", context - 1},
                              {"queries", d.query_test.size(0)},
                              {"chance_top1", 1.0 / static_cast<double>(context - 1)}};
  if (o.json) {
    std::cout << out.dump(2) << "\n";
  } else {
    std::printf("%s on %lld held-out summaries, %lld candidates each: top-1 %.3f, top-5 %.3f (chance %.3f)\n",
                method.c_str(), static_cast<long long>(d.query_test.size(0)), static_cast<long long>(context - 1),
                e.eval_top1, e.eval_top5, 1.0 / static_cast<double>(context - 1));
  }
  return 0;
}

struct QueryOptions {
  std::string data, text;
  int64_t k = 5;
  bool json = false;
};

int retrievalQueryCommand(const QueryOptions& o) {
  const RetrievalDataset d = loadRetrievalDataset(o.data);
  AnalysisModel m = loadAnalysisModel(d.source);
  const at::Tensor query = embedTexts(m, {o.text}, d.embedding)[0];
  const at::Tensor corpus = torch::cat({d.target_train, d.target_test}, 0);
  const auto ranked = rankByCosine(query, corpus, o.k);
  nlohmann::json results = nlohmann::json::array();
  for (const auto& r : ranked) {
    results.push_back({{"id", r.index},
                       {"score", r.score},
                       {"story", d.pairs[static_cast<size_t>(r.index)].story},
                       {"summary", d.pairs[static_cast<size_t>(r.index)].summary}});
  }
  if (o.json) {
    std::cout << nlohmann::json{{"query", o.text}, {"embedding_model", d.model_label}, {"results", results}}.dump(2)
              << "\n";
    return 0;
  }
  for (const auto& r : ranked) {
    const std::string& story = d.pairs[static_cast<size_t>(r.index)].story;
    std::printf("%6lld  %.4f  %s\n", static_cast<long long>(r.index), r.score,
                (story.size() > 110 ? story.substr(0, 110) + "..." : story).c_str());
  }
  return 0;
}

struct FinetuneOptions {
  std::string checkpoint, out;
  PairsOptions source;
  double test_fraction = 0.1;
  InfoNceSettings settings;
};

int retrievalFinetuneCommand(const FinetuneOptions& o) {
  auto pairs = o.source.corpus().pairs();
  const size_t held =
      std::max<size_t>(2, static_cast<size_t>(std::ceil(o.test_fraction * static_cast<double>(pairs.size()))));
  if (pairs.size() < held + static_cast<size_t>(o.settings.candidates) + 1) {
    throw MixerLabError("too few pairs for " + std::to_string(o.settings.candidates) + " candidates per step");
  }
  const std::vector<StoryPair> held_out(pairs.end() - static_cast<std::ptrdiff_t>(held), pairs.end());
  pairs.resize(pairs.size() - held);
  const fs::path checkpoint = infoNceFinetune(
      ModelSource::checkpoint(o.checkpoint), pairs, held_out, o.settings, o.out, [](const InfoNceProgress& p) {
        std::printf("step %5lld  InfoNCE %.4f", static_cast<long long>(p.step), p.loss);
        if (p.eval_top1) std::printf("  held-out cosine top-1 %.3f", *p.eval_top1);
        std::printf("\n");
        std::fflush(stdout);
      });
  std::printf("fine-tuned checkpoint: %s\n", checkpoint.string().c_str());
  return 0;
}

// `--research` for a settings struct: the research's settings, with every option the user gave laid
// over them. One owner for the retrieval subcommands that offer it.
template <typename Settings>
class ResearchDefaults {
 public:
  // Registers `option` as the one that sets `member`, and returns it.
  template <typename Member>
  CLI::Option* track(CLI::Option* option, Member Settings::*member) {
    copies_.emplace_back(option, [member](Settings& to, const Settings& from) { to.*member = from.*member; });
    return option;
  }
  // `parsed` as it is without --research; with it, `research` with the options given copied in.
  Settings resolve(const Settings& parsed, Settings research) const {
    if (!enabled) return parsed;
    for (const auto& [option, copy] : copies_) {
      if (option->count() > 0) copy(research, parsed);
    }
    return research;
  }
  bool enabled = false;

 private:
  std::vector<std::pair<CLI::Option*, std::function<void(Settings&, const Settings&)>>> copies_;
};

}  // namespace

void addRetrievalCommands(CLI::App& app, Action& action) {
  auto* retrieval =
      app.add_subcommand("retrieval", "Summary-to-story retrieval on model embeddings (docs/retrieval.md)");
  retrieval->require_subcommand(1);

  auto b = std::make_shared<BuildOptions>();
  auto* build =
      retrieval->add_subcommand("build", "Embed (summary, story) pairs with a checkpoint into a dataset folder");
  build->add_option("--checkpoint", b->checkpoint, "Embedding model: a checkpoint or run folder")->required();
  build->add_flag("--untrained", b->untrained, "Use the checkpoint's untrained twin (same config, fresh weights)");
  addPairsOptions(build, b->source, "--seed");
  build->add_option("--test-fraction", b->test_fraction, "Held-out share of the pairs (the last ones), 0.1");
  build->add_option("--position-from-end", b->from_end,
                    "Embedding position before the last token (-1: mixer 1, others 0)");
  build->add_flag("--after-final-norm", b->after_final_norm,
                  "Read the states after the family's final norm (Llama, Transfixer), as the paper-era research read a "
                  "transformer at T-1 (Hugging Face's hidden_states[-1]); the later code read before it at -2");
  build->add_option("--out", b->out, "Dataset folder to write")->required();
  build->add_option("--device", b->device, "Where the model embeds: cpu (default), cuda, cuda:N or auto")
      ->capture_default_str();
  build->callback([b, &action]() { action = [b]() { return retrievalBuildCommand(*b); }; });

  auto t = std::make_shared<RetrievalTrainOptions>();
  auto* train = retrieval->add_subcommand("train", "Train the retrieval model (a bidirectional mixer over candidates)");
  train->add_option("--data", t->data, "Dataset folder from `retrieval build`")->required();
  train
      ->add_option("--out", t->out,
                   "Run folder for metrics.jsonl, status.json, the model and retrieval_run.json (a project's "
                   "runs/<name> shows it live in the workbench)")
      ->required();
  // --research starts from RetrievalTrainSettings::research(c); the options given explicitly still win.
  auto research = std::make_shared<ResearchDefaults<RetrievalTrainSettings>>();
  const auto field = [&](CLI::Option* option, auto member) { research->track(option, member); };
  train->add_flag("--research", research->enabled,
                  "The research's training (docs/retrieval.md): batch 512, warm-up 500, 200 epochs, no weight decay, "
                  "gradient clip 1.0, negatives with replacement at c >= 128; other options override it");
  field(train->add_option("--context", t->settings.context, "c: the query plus c-1 candidates (32)"),
        &RetrievalTrainSettings::context);
  field(train->add_option("--layers", t->settings.layers, "Mixer blocks (8)"), &RetrievalTrainSettings::layers);
  field(train->add_option("--epochs", t->settings.epochs, "Epochs (20)"), &RetrievalTrainSettings::epochs);
  field(train->add_option("--batch", t->settings.batch_size, "Batch size (32)"), &RetrievalTrainSettings::batch_size);
  field(train->add_option("--learning-rate", t->settings.learning_rate, "Peak AdamW learning rate (1e-4)"),
        &RetrievalTrainSettings::learning_rate);
  field(train->add_option("--warmup", t->settings.warmup_steps, "Warm-up steps (50)"),
        &RetrievalTrainSettings::warmup_steps);
  field(train->add_flag("--with-replacement", t->settings.with_replacement, "Draw negatives with replacement"),
        &RetrievalTrainSettings::with_replacement);
  field(train->add_option("--weight-decay", t->settings.weight_decay, "AdamW weight decay (0.01; research 0)"),
        &RetrievalTrainSettings::weight_decay);
  field(train->add_option("--clip", t->settings.grad_clip_norm, "Gradient-norm clip, 0 = none (0; research 1.0)"),
        &RetrievalTrainSettings::grad_clip_norm);
  field(train->add_option("--seed", t->settings.seed, "Seed (1)"), &RetrievalTrainSettings::seed);
  train->callback([t, research, &action]() {
    t->settings = research->resolve(t->settings, RetrievalTrainSettings::research(t->settings.context));
    action = [t]() { return retrievalTrainCommand(*t); };
  });

  auto e = std::make_shared<EvalOptions>();
  auto* eval =
      retrieval->add_subcommand("eval", "Top-1 / top-5 on held-out pairs: a trained model, or cosine similarity");
  eval->add_option("--data", e->data, "Dataset folder")->required();
  eval->add_option("--model", e->model, "Folder of `retrieval train` (omit: cosine similarity)");
  eval->add_option("--context", e->context, "c for cosine evaluation (a model uses its own), 32");
  eval->add_option("--seed", e->seed, "Seed of the candidate sets (2)");
  eval->add_flag("--json", e->json, "Print JSON (top1, top5, candidates)");
  eval->callback([e, &action]() { action = [e]() { return retrievalEvalCommand(*e); }; });

  auto f = std::make_shared<FinetuneOptions>();
  auto* finetune =
      retrieval->add_subcommand("finetune", "Continue training a checkpoint with the InfoNCE loss (docs/retrieval.md)");
  finetune->add_option("--checkpoint", f->checkpoint, "The language model to fine-tune")->required();
  addPairsOptions(finetune, f->source, "--data-seed");
  finetune->add_option("--test-fraction", f->test_fraction, "Held-out share for the cosine top-1 readout (0.1)");
  // --research starts from InfoNceSettings::research(); the options given explicitly still win.
  auto finetune_research = std::make_shared<ResearchDefaults<InfoNceSettings>>();
  const auto finetune_field = [&](CLI::Option* option, auto member) { finetune_research->track(option, member); };
  finetune->add_flag(
      "--research", finetune_research->enabled,
      "The research code's InfoNCE training (docs/retrieval.md): 7 texts besides the summary (rows of 8), "
      "gradient accumulation 8, embeddings at index -2 for every family; other options override it");
  finetune_field(finetune->add_option("--steps", f->settings.steps, "Optimizer steps (200)"), &InfoNceSettings::steps);
  finetune_field(finetune->add_option("--candidates", f->settings.candidates, "Texts per summary (8)"),
                 &InfoNceSettings::candidates);
  finetune_field(finetune->add_option("--temperature", f->settings.temperature, "tau of the InfoNCE loss (0.02)"),
                 &InfoNceSettings::temperature);
  finetune_field(finetune->add_option("--learning-rate", f->settings.learning_rate, "Peak AdamW learning rate (1e-4)"),
                 &InfoNceSettings::learning_rate);
  finetune_field(finetune->add_option("--warmup", f->settings.warmup_steps, "Warm-up steps (50)"),
                 &InfoNceSettings::warmup_steps);
  finetune_field(finetune->add_option("--grad-accum", f->settings.grad_accum_steps,
                                      "Summaries per optimizer step (1; research 8)"),
                 &InfoNceSettings::grad_accum_steps);
  finetune_field(finetune->add_option("--position-from-end", f->settings.position_from_end,
                                      "Embedding position before the last token (-1: mixer 1, others 0; research 1)"),
                 &InfoNceSettings::position_from_end);
  finetune_field(
      finetune->add_option("--eval-every", f->settings.eval_every, "Held-out cosine top-1 every N steps (50)"),
      &InfoNceSettings::eval_every);
  finetune->add_option("--out", f->out, "Folder for the fine-tuned checkpoint")->required();
  finetune->callback([f, finetune_research, &action]() {
    f->settings = finetune_research->resolve(f->settings, InfoNceSettings::research());
    action = [f]() { return retrievalFinetuneCommand(*f); };
  });

  auto q = std::make_shared<QueryOptions>();
  auto* query = retrieval->add_subcommand("query", "Rank the dataset's stories for a summary by cosine similarity");
  query->add_option("--data", q->data, "Dataset folder")->required();
  query->add_option("--text", q->text, "The summary or keywords")->required();
  query->add_option("--k", q->k, "How many stories (5)");
  query->add_flag("--json", q->json, "Print JSON (ids, scores, texts)");
  query->callback([q, &action]() { action = [q]() { return retrievalQueryCommand(*q); }; });
}

}  // namespace mixerlab::cli
