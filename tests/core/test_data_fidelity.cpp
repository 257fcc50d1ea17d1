// Research fidelity of the data layout, the eval loss and the schedule: left
// padding makes the first real token a target, pad = eos masks every eos position, newline "unk"
// puts <unk> where "\n" was, packing without a separator concatenates documents directly, the
// sample-weighted eval loss equals the HF Trainer's mean on a hand-made case, and a time-only budget
// decays the learning rate toward the configured epochs (and stops there). Also: the defaults are
// the research's choices, run.json records them, and old stored configs keep what they ran with.
#include <torch/torch.h>
#include <QtTest/QtTest>

#include <fstream>
#include <limits>

#include "core/config/project_config.h"
#include "core/config/train_config.h"
#include "core/data/batching.h"
#include "core/data/shard_preparation.h"
#include "core/data/token_cache.h"
#include "core/data/tokenizer.h"
#include "core/data/tokenizer_sample.h"
#include "core/models/model_registry.h"
#include "core/runs/metrics_log.h"
#include "core/runs/run_directory.h"
#include "core/train/evaluator.h"
#include "core/train/lr_schedule.h"
#include "core/train/run_data.h"
#include "core/train/train_cadence.h"
#include "core/train/trainer.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "tests/tiny_model_config.h"
#include "tests/training_fixture.h"

using namespace mixerlab;
namespace fs = std::filesystem;

namespace {

constexpr int kEos = 2, kPad = 3;

// A token cache file in the documented layout (token_cache.h) holding exactly these documents.
void writeTokenCache(const fs::path& path, const std::vector<std::vector<int32_t>>& documents) {
  TokenShardWriter writer(path, 4);
  for (const auto& d : documents) writer.addDocument(std::vector<int>(d.begin(), d.end()));
  writer.commit();
}

std::vector<size_t> allDocs(const TokenCache& cache) {
  std::vector<size_t> docs(cache.numDocuments());
  for (size_t i = 0; i < docs.size(); ++i) docs[i] = i;
  return docs;
}

std::vector<int64_t> row(const at::Tensor& t, int64_t b) {
  const auto r = t[b].contiguous();
  return std::vector<int64_t>(r.data_ptr<int64_t>(), r.data_ptr<int64_t>() + r.numel());
}

BatchingSettings layout(BatchMode mode, int64_t T, int64_t B, PaddingSide side, int pad_id,
                        PackSeparator separator = PackSeparator::None) {
  BatchingSettings s;
  s.context_length = T;
  s.batch_size = B;
  s.mode = mode;
  s.padding_side = side;
  s.pad_id = pad_id;
  s.eos_id = kEos;
  s.pack_separator = separator;
  return s;
}

ModelConfig tinyMixer(int64_t vocab, int64_t context) {
  return testing::tinyModelConfig("masked_mixer", vocab, 16, 2, context);
}

// Mean of -log p(label[b, t+1] | logits[b, t]) over one batch's targets, written out.
double batchMeanByHand(const at::Tensor& logits, const at::Tensor& labels, int64_t* targets) {
  const auto log_probs = torch::log_softmax(logits.to(torch::kDouble), -1);
  double sum = 0;
  *targets = 0;
  for (int64_t b = 0; b < labels.size(0); ++b) {
    for (int64_t t = 0; t + 1 < labels.size(1); ++t) {
      const int64_t label = labels[b][t + 1].item<int64_t>();
      if (label == kIgnoreLabel) continue;
      sum -= log_probs[b][t][label].item<double>();
      ++*targets;
    }
  }
  return sum / static_cast<double>(*targets);
}

Batch makeBatch(const at::Tensor& ids, const at::Tensor& labels) {
  Batch b;
  b.input_ids = ids;
  b.labels = labels;
  b.num_tokens = ids.numel();
  b.num_target_tokens = labels.ne(kIgnoreLabel).sum().item<int64_t>();
  return b;
}

}  // namespace

class TestDataFidelity : public QObject {
  Q_OBJECT
  fs::path dir_;
  std::optional<Tokenizer> tokenizer_;

 private Q_SLOTS:
  void initTestCase() {
    at::set_num_threads(2);
    dir_ = testing::makeScratchDir("data-fidelity");
    TokenizerSettings tok;
    tok.vocab_size = 512;
    tokenizer_ = Tokenizer::load(ensureTokenizer(testing::demoTrainCorpus(), CorpusFormat::Auto, tok, dir_));
  }

  // The research's choices are the defaults where a run reproduces a paper setup (MixerLab keeps
  // its newline token), and the run's batching follows them.
  void defaultsAreTheResearchLayout() {
    const TrainConfig t;
    QCOMPARE(t.padding_side, std::string("left"));
    QCOMPARE(t.pad_token, std::string("eos"));
    QCOMPARE(t.newline, std::string("token"));
    QCOMPARE(t.pack_separator, std::string("eos"));  // MixerLab's choice (research packing: none)
    QCOMPARE(t.eval_weighting, std::string("samples"));
    QVERIFY(t.schedule_epochs > 0);
    RunConfig run;
    run.model = tinyMixer(512, 16);
    const BatchingSettings s = batchingFor(run, *tokenizer_);
    QVERIFY(s.padding_side == PaddingSide::Left);
    QCOMPARE(s.pad_id, tokenizer_->eosId());
    QVERIFY(s.pack_separator == PackSeparator::Eos);
    run.train.pad_token = "pad";
    run.train.pack_separator = "none";
    QCOMPARE(batchingFor(run, *tokenizer_).pad_id, tokenizer_->padId());
    QVERIFY(batchingFor(run, *tokenizer_).pack_separator == PackSeparator::None);
  }

  // Rows shorter than T: with left padding the pads come first and the first real token carries a
  // label that the shifted loss scores (from the last pad), so every token of the document is a
  // target; with right padding the first token sits at position 0 and is never a target.
  void leftPaddingMakesFirstTokenATarget() {
    const std::vector<std::vector<int32_t>> docs{{5, 6, 7}, {8, 9}, {10, 11, 12, 13, 14}, {15}};
    writeTokenCache(dir_ / "short.bin", docs);
    const TokenCache cache = TokenCache::open(dir_ / "short.bin");
    const int64_t T = 8;
    auto model = buildModel(tinyMixer(61, T));
    int64_t real_tokens = 0;
    for (const auto& d : docs) real_tokens += static_cast<int64_t>(d.size());

    for (PaddingSide side : {PaddingSide::Left, PaddingSide::Right}) {
      const ExampleSet set(cache, allDocs(cache), layout(BatchMode::Padded, T, 4, side, kEos));
      const Batch batch = set.batch({0, 1, 2, 3});
      for (int64_t b = 0; b < 4; ++b) {
        const auto ids = row(batch.input_ids, b), labels = row(batch.labels, b);
        const auto& doc = docs[static_cast<size_t>(b)];
        const int64_t first = side == PaddingSide::Left ? T - static_cast<int64_t>(doc.size()) : 0;
        QCOMPARE(ids[static_cast<size_t>(first)], int64_t{doc.front()});
        for (int64_t t = 0; t < first; ++t) QCOMPARE(ids[static_cast<size_t>(t)], int64_t{kEos});  // pads first
        // The shifted loss scores label t from the logits at t - 1: position 0 is never a target.
        const bool first_is_target = first >= 1 && labels[static_cast<size_t>(first)] == doc.front();
        QVERIFY2(first_is_target == (side == PaddingSide::Left),
                 qPrintable(QString("row %1, %2 padding: first token at %3")
                                .arg(b)
                                .arg(QString::fromStdString(paddingSideName(side)))
                                .arg(first)));
      }
      // Left: every document token is a target; right: each row loses its first one.
      const int64_t expected = side == PaddingSide::Left ? real_tokens : real_tokens - 4;
      QCOMPARE(model->targetCount(batch.labels), expected);
    }
  }

  // pad = eos (the research): pads are the eos id, and every position holding that id gets no
  // target, a real eos inside the document included (HF's collator). pad = <pad>: only the pads.
  void padTokenEosMasksEveryEos() {
    writeTokenCache(dir_ / "eos.bin", {{5, kEos, 6}});
    const TokenCache cache = TokenCache::open(dir_ / "eos.bin");
    const ExampleSet eos(cache, {0}, layout(BatchMode::Padded, 6, 1, PaddingSide::Left, kEos));
    const Batch a = eos.batch({0});
    QCOMPARE(row(a.input_ids, 0), (std::vector<int64_t>{kEos, kEos, kEos, 5, kEos, 6}));
    QCOMPARE(row(a.labels, 0), (std::vector<int64_t>{-100, -100, -100, 5, -100, 6}));
    QCOMPARE(a.num_target_tokens, int64_t{2});
    const ExampleSet pad(cache, {0}, layout(BatchMode::Padded, 6, 1, PaddingSide::Left, kPad));
    const Batch b = pad.batch({0});
    QCOMPARE(row(b.input_ids, 0), (std::vector<int64_t>{kPad, kPad, kPad, 5, kEos, 6}));
    QCOMPARE(row(b.labels, 0), (std::vector<int64_t>{-100, -100, -100, 5, kEos, 6}));
  }

  // newline "unk": the ids of the text around each newline are those of the token mode, and each
  // run of newlines is one <unk> (the research tokenizer had no newline and fused unknowns).
  void newlineUnkPutsUnkWhereNewlinesWere() {
    const std::string text = "Lily saw a cat.\nThe cat ran away.\n\nThe end.";
    const std::vector<int> tokens = encodeDocument(*tokenizer_, text, NewlineMode::Token);
    const std::vector<int> unk = encodeDocument(*tokenizer_, text, NewlineMode::Unk);
    QCOMPARE(tokens, tokenizer_->encode(text));
    const int newline_id = tokens[static_cast<size_t>(
        std::find_if(tokens.begin(), tokens.end(), [&](int id) { return tokenizer_->piece(id) == "\n"; }) -
        tokens.begin())];
    QCOMPARE(tokenizer_->piece(newline_id), std::string("\n"));
    std::vector<int> expected;
    for (int id : tokens) {
      if (id != newline_id) {
        expected.push_back(id);
      } else if (expected.empty() || expected.back() != tokenizer_->unkId()) {
        expected.push_back(tokenizer_->unkId());
      }
    }
    QCOMPARE(unk, expected);
    QCOMPARE(std::count(unk.begin(), unk.end(), tokenizer_->unkId()), std::ptrdiff_t{2});
    QCOMPARE(std::count(unk.begin(), unk.end(), newline_id), std::ptrdiff_t{0});
    QCOMPARE(std::count(tokens.begin(), tokens.end(), newline_id), std::ptrdiff_t{3});

    // The token cache applies the mode and keeps the two encodings in separate files.
    testing::writeText(dir_ / "nl.jsonl", nlohmann::json({{"text", text}}).dump() + "\n");
    const fs::path token_cache = prepareCorpusShards(dir_ / "nl.jsonl", CorpusFormat::Auto, *tokenizer_, dir_ / "cache",
                                                     nullptr, NewlineMode::Token);
    const fs::path unk_cache = prepareCorpusShards(dir_ / "nl.jsonl", CorpusFormat::Auto, *tokenizer_, dir_ / "cache",
                                                   nullptr, NewlineMode::Unk);
    QVERIFY(token_cache != unk_cache);
    const TokenCache cache = TokenCache::open(unk_cache);
    const TokenSpan span = cache.document(0);
    QCOMPARE(span.ids(), unk);
  }

  // pack_separator none (the research): the documents' tokens back to back, no eos anywhere;
  // eos: one after every document.
  void packSeparatorNoneConcatenates() {
    writeTokenCache(dir_ / "pack.bin", {{5, 6, 7}, {}, {8, 9}, {10, 11, 12, 13}});
    const TokenCache cache = TokenCache::open(dir_ / "pack.bin");
    const ExampleSet none(cache, allDocs(cache), layout(BatchMode::Packed, 3, 1, PaddingSide::Left, kEos));
    QCOMPARE(none.numExamples(), int64_t{3});
    const Batch a = none.batch({0, 1, 2});
    QCOMPARE(row(a.input_ids, 0), (std::vector<int64_t>{5, 6, 7}));
    QCOMPARE(row(a.input_ids, 1), (std::vector<int64_t>{8, 9, 10}));
    QCOMPARE(row(a.input_ids, 2), (std::vector<int64_t>{11, 12, 13}));
    QVERIFY(torch::equal(a.labels, a.input_ids));
    const ExampleSet eos(cache, allDocs(cache),
                         layout(BatchMode::Packed, 3, 1, PaddingSide::Left, kEos, PackSeparator::Eos));
    QCOMPARE(eos.numExamples(), int64_t{4});  // 9 tokens + 4 separators (the empty document's too)
    const Batch b = eos.batch({0, 1, 2, 3});
    QCOMPARE(row(b.input_ids, 0), (std::vector<int64_t>{5, 6, 7}));
    QCOMPARE(row(b.input_ids, 1), (std::vector<int64_t>{kEos, kEos, 8}));
    QCOMPARE(row(b.input_ids, 2), (std::vector<int64_t>{9, kEos, 10}));
    QCOMPARE(row(b.input_ids, 3), (std::vector<int64_t>{11, 12, 13}));
  }

  // Two batches with different row counts and targets per row (and one without targets, which is
  // skipped): samples = sum(batch mean x rows) / sum(rows), as the HF Trainer averages per-sample
  // repeats of the batch loss; tokens = sum(batch mean x targets) / sum(targets). The case is
  // chosen so the two differ.
  void sampleWeightedEvalMatchesHandComputation() {
    const int64_t T = 8, V = 61;
    torch::manual_seed(4);
    auto model = buildModel(tinyMixer(V, T));
    model->to(torch::kDouble);
    std::vector<Batch> batches;
    {
      const auto ids = torch::randint(4, V, {2, T}, torch::kInt64);  // 2 full rows: 14 targets
      batches.push_back(makeBatch(ids, ids.clone()));
    }
    {
      auto ids = torch::randint(4, V, {3, T}, torch::kInt64);  // 3 rows of 2 real tokens: 6 targets
      ids.narrow(1, 0, T - 2).fill_(kEos);
      auto labels = ids.clone();
      labels.narrow(1, 0, T - 2).fill_(kIgnoreLabel);
      batches.push_back(makeBatch(ids, labels));
    }
    {
      const auto ids = torch::full({4, T}, kEos, torch::kInt64);  // only pads: no targets
      batches.push_back(makeBatch(ids, torch::full({4, T}, kIgnoreLabel, torch::kInt64)));
    }
    double samples_sum = 0, tokens_sum = 0;
    int64_t rows = 0, targets = 0;
    {
      torch::NoGradGuard no_grad;
      model->eval();
      for (size_t i = 0; i < 2; ++i) {
        int64_t n = 0;
        const double mean = batchMeanByHand(model->forward(batches[i].input_ids), batches[i].labels, &n);
        samples_sum += mean * static_cast<double>(batches[i].input_ids.size(0));
        rows += batches[i].input_ids.size(0);
        tokens_sum += mean * static_cast<double>(n);
        targets += n;
      }
    }
    QCOMPARE(targets, int64_t{20});
    const double by_samples = samples_sum / static_cast<double>(rows);
    const double by_tokens = tokens_sum / static_cast<double>(targets);
    QVERIFY2(
        std::abs(by_samples - by_tokens) > 1e-3,
        qPrintable(QString("the case does not tell the weightings apart: %1 vs %2").arg(by_samples).arg(by_tokens)));
    const auto cpu = torch::Device(torch::kCPU);
    const double samples = evaluateLoss(*model, batches, cpu, EvalWeighting::Samples);
    const double tokens = evaluateLoss(*model, batches, cpu, EvalWeighting::Tokens);
    QVERIFY2(std::abs(samples - by_samples) < 1e-9,
             qPrintable(QString("samples: evaluateLoss %1, by hand %2").arg(samples, 0, 'g', 12).arg(by_samples)));
    QVERIFY2(std::abs(tokens - by_tokens) < 1e-9,
             qPrintable(QString("tokens: evaluateLoss %1, by hand %2").arg(tokens, 0, 'g', 12).arg(by_tokens)));
    QVERIFY(parseEvalWeighting("samples") == EvalWeighting::Samples);
    QVERIFY_THROWS_EXCEPTION(MixerLabError, parseEvalWeighting("rows"));
  }

  // A time-only budget: the horizon is schedule_epochs x optimizer steps per epoch (HF: ceil of
  // epochs x max(batches // accumulation, 1)), so the LR decays, and the budget ends there too.
  // schedule_epochs 0 keeps the constant LR; a step budget still sets the horizon itself.
  void timeOnlyBudgetDecaysLearningRate() {
    TrainConfig tc;
    tc.max_wall_s = 3600;
    tc.warmup_steps = 10;
    tc.grad_accum_steps = 2;
    tc.schedule_epochs = 1.5;
    QVERIFY(tc.horizonFromEpochs());
    const int64_t horizon = tc.scheduleHorizon(/*tokens_per_step=*/1024, /*micro_batches_per_epoch=*/101);
    QCOMPARE(horizon, int64_t{75});  // ceil(1.5 x (101 // 2))
    auto lr = [&](int64_t step, int64_t h) {
      return learningRateAt(step, tc.learning_rate, tc.warmup_steps, h, tc.schedule, tc.min_lr_ratio);
    };
    QCOMPARE(lr(9, horizon), tc.learning_rate);
    QVERIFY(lr(40, horizon) < 0.6 * tc.learning_rate);
    QVERIFY(lr(74, horizon) < 0.02 * tc.learning_rate);
    const TrainBudget budget{tc, horizon};
    TrainerState state;
    state.step = 74;
    QVERIFY(!budget.reached(state));
    state.step = 75;
    QVERIFY(budget.reached(state));

    TrainConfig constant = tc;
    constant.schedule_epochs = 0;
    QVERIFY(!constant.horizonFromEpochs());
    QCOMPARE(constant.scheduleHorizon(1024, 101), int64_t{0});
    TrainConfig steps = tc;
    steps.max_steps = 500;
    QVERIFY(!steps.horizonFromEpochs());
    QCOMPARE(steps.scheduleHorizon(1024, 101), int64_t{500});
  }

  // schedule_horizon "epochs" (the research's fixed-compute reading): the decay spans
  // schedule_epochs even under a step or token budget, and whichever of the budget and the epoch
  // horizon comes first stops the run; the budget first leaves the LR mid-schedule.
  void epochsHorizonHoldsUnderABudget() {
    TrainConfig tc;
    tc.max_tokens = 1000000;
    tc.warmup_steps = 10;
    tc.schedule_horizon = "epochs";
    tc.schedule_epochs = 3;
    QVERIFY(tc.horizonFromEpochs());
    QCOMPARE(tc.scheduleHorizon(/*tokens_per_step=*/1024, /*micro_batches_per_epoch=*/101), int64_t{303});
    // The epochs end first: step 303 stops the run with 303 x 1024 = 310,272 tokens seen.
    TrainerState state;
    state.step = 302;
    state.tokens = 302 * 1024;
    QVERIFY(!(TrainBudget{tc, 303}.reached(state)));
    state.step = 303;
    state.tokens = 303 * 1024;
    QVERIFY((TrainBudget{tc, 303}.reached(state)));
    // The token budget ends first (ceil(1e6 / 1024) = 977 steps) while the decay spans 20 epochs.
    tc.schedule_epochs = 20;
    const int64_t horizon = tc.scheduleHorizon(1024, 101);
    QCOMPARE(horizon, int64_t{2020});
    state.step = 976;
    state.tokens = 976 * 1024;
    QVERIFY(!(TrainBudget{tc, horizon}.reached(state)));
    state.step = 977;
    state.tokens = 977 * 1024;
    QVERIFY((TrainBudget{tc, horizon}.reached(state)));
    const double lr = learningRateAt(977, tc.learning_rate, tc.warmup_steps, horizon, tc.schedule, tc.min_lr_ratio);
    const double expected = tc.learning_rate * (2020.0 - 977.0) / (2020.0 - 10.0);
    QVERIFY2(std::abs(lr - expected) < 1e-12, qPrintable(QString("lr %1, expected %2").arg(lr).arg(expected)));
    // "budget" keeps the decay on the budget; an explicit schedule_steps wins over both.
    TrainConfig budget = tc;
    budget.schedule_horizon = "budget";
    QVERIFY(!budget.horizonFromEpochs());
    QCOMPARE(budget.scheduleHorizon(1024, 101), int64_t{977});
    TrainConfig explicit_steps = tc;
    explicit_steps.schedule_steps = 50;
    QVERIFY(!explicit_steps.horizonFromEpochs());
    QCOMPARE(explicit_steps.scheduleHorizon(1024, 101), int64_t{50});
  }

  // The project file refuses an "epochs" horizon that could not span epochs, naming the key.
  void epochsHorizonNeedsEpochs() {
    const fs::path project_dir = dir_ / "horizon-refused";
    const std::pair<const char*, const char*> refused[] = {
        {R"(, "schedule_horizon": "epochs", "schedule_epochs": 0, "schedule_steps": 0)", "schedule_epochs 0"},
        {R"(, "schedule_horizon": "epochs", "schedule_epochs": 2, "schedule_steps": 40)", "with schedule_steps set"}};
    for (const auto& [extra, problem] : refused) {
      const fs::path file = testing::writeTinyProject(project_dir, extra);
      const std::string error = testing::errorOf([&] { loadProject(file); });
      QVERIFY2(error.find("schedule_horizon") != std::string::npos && error.find(problem) != std::string::npos &&
                   error.find("fix:") != std::string::npos,
               error.c_str());
    }
    const fs::path ok = testing::writeTinyProject(
        project_dir, R"(, "schedule_horizon": "epochs", "schedule_epochs": 2, "schedule_steps": 0)");
    QCOMPARE(loadProject(ok).run("mixer").train.schedule_horizon, std::string("epochs"));
  }

  // End to end: a step budget that ends before the epoch horizon stops the run there, its last LR
  // on the epochs' linear decay (far from zero), and run.json records the horizon.
  void budgetCutsTheEpochScheduleMidway() {
    const fs::path project_dir = dir_ / "mid-schedule";
    const ProjectConfig project = loadProject(testing::writeTinyProject(
        project_dir, R"(, "schedule_steps": 0, "schedule_horizon": "epochs", "schedule_epochs": 3)"));
    const RunConfig& run = project.run("mixer");
    const RunData data = prepareRunData(project, run, [](const std::string&) {});
    const int64_t micro_batches = data.train_examples->numExamples() / run.train.batch_size;
    const int64_t horizon = 3 * micro_batches;
    QVERIFY2(run.train.max_steps > run.train.warmup_steps && horizon > 2 * run.train.max_steps,
             qPrintable(QString("max_steps %1, horizon %2").arg(run.train.max_steps).arg(horizon)));
    TrainRequest request;
    request.project = &project;
    request.run = run;
    request.run_dir = project_dir / "runs" / "mixer";
    QCOMPARE(trainRun(request).state, RunState::Finished);
    const auto records = readMetrics(request.run_dir / "metrics.jsonl");
    QCOMPARE(records.back().step, run.train.max_steps);
    // The step-N record carries the rate step N trained with, the schedule's value after N - 1 steps.
    const double peak = run.train.learning_rate;
    const double expected = peak * static_cast<double>(horizon - (run.train.max_steps - 1)) /
                            static_cast<double>(horizon - run.train.warmup_steps);
    QVERIFY2(std::abs(records.back().learning_rate - expected) < 1e-12,
             qPrintable(QString("last lr %1, expected %2").arg(records.back().learning_rate).arg(expected)));
    std::ifstream run_json(RunPaths{request.run_dir}.runJson());
    QCOMPARE(nlohmann::json::parse(run_json).at("run").at("train").at("schedule_horizon").get<std::string>(),
             std::string("epochs"));
  }

  // Padded rows keep each document's first T tokens. The share kept, by hand: {10, 30} at T=10 keeps
  // 20 of 40 tokens (exactly kPaddedKeptWarnFraction, no warning), {10, 31} 20 of 41 (a warning).
  // A 2,149-row CSV read as blank_line text (set by hand: format auto refuses a table, see
  // test_corpus_reader) is one document: a padded run warns that nearly all of it is never trained
  // on and names the fixes; the packed run of the same corpus does not warn.
  void paddingThatDropsMostTokensWarns() {
    QCOMPARE(paddedTokensKeptFraction({10, 30}, 10), 0.5);
    QCOMPARE(paddedTokensKeptFraction({10, 31}, 10), 20.0 / 41.0);
    QCOMPARE(paddedTokensKeptFraction({}, 10), 1.0);
    QCOMPARE(paddedTokensKeptFraction({5, 7}, 10), 1.0);
    const fs::path project_dir = dir_ / "csv-one-document";
    std::string csv = "id,name,story\n";
    for (int i = 0; i < 2149; ++i) csv += std::to_string(i) + ",tim,the cat sat on the mat and looked at the sun\n";
    testing::writeText(project_dir / "rows.csv", csv);
    for (const char* mode : {"padded", "packed"}) {
      const fs::path file = testing::writeTinyProject(project_dir, std::string(R"(, "batch_mode": ")") + mode + "\"");
      auto document = nlohmann::json::parse(readFile(file));
      document["corpus"] = {{"train", "rows.csv"}, {"format", "blank_line"}, {"eval_fraction", 0.0}};
      document["corpus"]["eval"] = (testing::sourceDir() / "projects/demo/data/stories-a.txt").string();
      testing::writeText(file, document.dump(2));
      const ProjectConfig project = loadProject(file);
      std::string log;
      const RunData data =
          prepareRunData(project, project.run("mixer"), [&](const std::string& l) { log += l + "\n"; });
      QCOMPARE(data.train_cache->numDocuments(), size_t{1});
      const bool warned =
          log.find("warning: train.batch_mode \"padded\" keeps the first 32 tokens") != std::string::npos;
      QVERIFY2(warned == (std::string(mode) == "padded"), log.c_str());
      if (warned)
        QVERIFY2(log.find("corpus.format \"blank_line\"") != std::string::npos && log.find("fix:") != std::string::npos,
                 log.c_str());
    }
  }

  // corpus.max_examples (the research trains on the first 2,000,000 TinyStories): the
  // capped run trains on exactly the first N documents of the training file, in file order (the
  // uncapped run's first N padded examples, token for token), with the eval set unchanged; with an
  // eval split the cap applies to the documents the split leaves for training.
  void maxExamplesTrainsOnTheFirstDocuments() {
    for (const bool split : {false, true}) {
      const fs::path project_dir = dir_ / (split ? "cap-split" : "cap-file");
      const fs::path full_file = testing::writeTinyProject(project_dir, R"(, "batch_mode": "padded")");
      auto document = nlohmann::json::parse(readFile(full_file));
      if (split) document["corpus"].erase("eval");
      testing::writeText(full_file, document.dump(2));
      document["corpus"]["max_examples"] = 7;
      const fs::path capped_file = project_dir / "capped.json";
      testing::writeText(capped_file, document.dump(2));
      const ProjectConfig full = loadProject(full_file), capped = loadProject(capped_file);
      QCOMPARE(capped.corpus.max_examples, int64_t{7});
      const auto quiet = [](const std::string&) {};
      const RunData all = prepareRunData(full, full.run("mixer"), quiet);
      const RunData first = prepareRunData(capped, capped.run("mixer"), quiet);
      QVERIFY(all.train_examples->numExamples() > 20);
      QCOMPARE(first.train_examples->numExamples(), int64_t{7});
      QCOMPARE(first.eval_examples->numExamples(), all.eval_examples->numExamples());
      const int64_t T = full.run("mixer").model.context_length;
      std::vector<int64_t> want(T), got(T), labels(T);
      for (int64_t i = 0; i < 7; ++i) {
        all.train_examples->fill(i, want.data(), labels.data());
        first.train_examples->fill(i, got.data(), labels.data());
        QCOMPARE(got, want);
      }
    }
  }

  // End to end: a run whose only budget is max_wall_s decays its LR toward schedule_epochs of the
  // training split and stops there (a second or two, long before the clock's 60 s), and run.json
  // records every data and eval choice of the run.
  void timeOnlyRunDecaysAndRecordsChoices() {
    const fs::path project_dir = dir_ / "run";
    const ProjectConfig project = loadProject(testing::writeTinyProject(
        project_dir, R"(, "max_steps": 0, "schedule_steps": 0, "max_wall_s": 60, "schedule_epochs": 0.02)"));
    const RunConfig& run = project.run("mixer");
    const RunData data = prepareRunData(project, run, [](const std::string&) {});
    const int64_t micro_batches = data.train_examples->numExamples() / run.train.batch_size;
    const int64_t horizon = static_cast<int64_t>(std::ceil(0.02 * static_cast<double>(micro_batches)));
    QVERIFY2(horizon > run.train.warmup_steps + 4 && horizon < 60, qPrintable(QString::number(horizon)));

    TrainRequest request;
    request.project = &project;
    request.run = run;
    request.run_dir = project_dir / "runs" / "mixer";
    QCOMPARE(trainRun(request).state, RunState::Finished);
    const auto records = readMetrics(request.run_dir / "metrics.jsonl");
    QCOMPARE(records.back().step, horizon);  // stopped at the horizon, not by the clock
    double previous = std::numeric_limits<double>::infinity();
    for (const auto& r : records) {
      if (r.step <= run.train.warmup_steps) continue;
      QVERIFY2(r.learning_rate < previous, qPrintable(QString("step %1: lr %2").arg(r.step).arg(r.learning_rate)));
      previous = r.learning_rate;
    }
    // The last step's LR: one step before the end of a linear decay from the peak.
    const double last = run.train.learning_rate / static_cast<double>(horizon - run.train.warmup_steps);
    QVERIFY2(std::abs(records.back().learning_rate - last) < 1e-12,
             qPrintable(QString("last lr %1, expected %2").arg(records.back().learning_rate).arg(last)));

    std::ifstream run_json(RunPaths{request.run_dir}.runJson());
    const nlohmann::json train = nlohmann::json::parse(run_json).at("run").at("train");
    for (const char* key : {"padding_side", "pad_token", "newline", "pack_separator", "eval_weighting", "eval_batches",
                            "schedule_epochs"}) {
      QVERIFY2(train.contains(key), key);
    }
    QCOMPARE(train.at("pack_separator").get<std::string>(), std::string("eos"));
    QCOMPARE(train.at("schedule_epochs").get<double>(), 0.02);
  }

  // A run.json or checkpoint written before these keys existed keeps the layout it ran with.
  void storedConfigsKeepTheirLayout() {
    nlohmann::json old = TrainConfig().toJson();
    for (const char* key : {"pad_token", "newline", "pack_separator", "eval_weighting", "schedule_epochs"}) {
      old.erase(key);
    }
    old["padding_side"] = "right";
    const TrainConfig t = TrainConfig::fromJson(old);
    QCOMPARE(t.padding_side, std::string("right"));
    QCOMPARE(t.pad_token, std::string("pad"));
    QCOMPARE(t.newline, std::string("token"));
    QCOMPARE(t.pack_separator, std::string("eos"));
    QCOMPARE(t.eval_weighting, std::string("tokens"));
    QCOMPARE(t.schedule_epochs, 0.0);
    QCOMPARE(TrainConfig::fromJson(TrainConfig().toJson()).toJson(), TrainConfig().toJson());
  }
};

QTEST_APPLESS_MAIN(TestDataFidelity)
#include "test_data_fidelity.moc"
