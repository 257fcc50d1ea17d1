// Generation: every incremental decoder against its reference on trained checkpoints —
// the cached mixer against the research's fixed-window method for each mixer variant, KV caches
// against full recompute (also past the window, where Llama and GPT slide), Mamba's recurrent
// state against the full forward — plus seeds, stop conditions, the prompt layout and several
// samples of one prompt decoded as one batch.
#include <torch/torch.h>
#include <QtTest/QtTest>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <set>

#include "core/analysis/decoders/decode_step_scope.h"
#include "core/analysis/decoders/token_decoder.h"
#include "core/analysis/generation.h"
#include "core/config/project_config.h"
#include "core/data/tokenizer.h"
#include "core/models/model_registry.h"
#include "core/train/checkpoint.h"
#include "core/train/trainer.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "tests/model_checks.h"
#include "tests/test_support.h"
#include "tests/tiny_model_config.h"
#include "tests/training_fixture.h"

using namespace mixerlab;
namespace fs = std::filesystem;

namespace {

constexpr int64_t kContext = 48;

// One tiny project on the demo corpus with a run per family and mixer variant.
fs::path writeProject(const fs::path& dir) {
  const std::string json = "{" + testing::demoCorpusJson() + R"(,
    "tokenizer": {"vocab_size": 512},
    "defaults": {
      "model": {"d_model": 32, "n_layers": 2, "context_length": )" +
                           std::to_string(kContext) + R"(, "n_heads": 4},
      "train": {"batch_size": 8, "learning_rate": 0.005, "warmup_steps": 3, "max_steps": 25, "eval_every": 25,
                "eval_batches": 1, "log_every": 5, "checkpoint_every": 25, "batch_mode": "packed", "device": "cpu",
                "threads": 2}
    },
    "runs": [
      {"name": "flat", "model": {"arch": "masked_mixer"}},
      {"name": "kernel3", "model": {"arch": "masked_mixer", "kernel_size": 3}},
      {"name": "expanded", "model": {"arch": "masked_mixer", "options": {"mixing": "expanded"}}},
      {"name": "multi_head", "model": {"arch": "masked_mixer", "options": {"mixing": "multi_head"}}},
      {"name": "multi_head_compat", "model": {"arch": "masked_mixer",
        "options": {"mixing": "multi_head", "multi_head_compat": true}}},
      {"name": "softmax", "model": {"arch": "masked_mixer", "options": {"mixing_weights": "softmax"}}},
      {"name": "softmax_compat", "model": {"arch": "masked_mixer", "options": {"mixing_weights": "softmax_compat"}}},
      {"name": "inplace_compat", "model": {"arch": "masked_mixer", "options": {"mask_mode": "inplace_compat"}}},
      {"name": "linear", "model": {"arch": "masked_mixer",
        "options": {"layer_norms": false, "feed_forward": "linear", "head_activation": "relu"}}},
      {"name": "mtp", "model": {"arch": "masked_mixer", "objective": "multi_token"}},
      {"name": "llama", "model": {"arch": "llama"}},
      {"name": "gpt", "model": {"arch": "gpt"}},
      {"name": "transfixer", "model": {"arch": "transfixer"}},
      {"name": "transfixer_parallel", "model": {"arch": "transfixer", "options": {"conv_placement": "parallel"}}},
      {"name": "transfixer_before", "model": {"arch": "transfixer",
        "options": {"conv_placement": "before_attention", "conv_kernel_size": 3}}},
      {"name": "mamba", "model": {"arch": "mamba"}}
    ]
  })";
  // A next-token family the runs above do not name yet joins with its defaults, so the decoders'
  // agreement is checked for a new family without naming it here.
  auto project = nlohmann::json::parse(json);
  for (const std::string& family : testing::nextTokenFamilies()) {
    bool named = false;
    for (const auto& r : project["runs"]) named = named || r["model"]["arch"] == family;
    if (!named) project["runs"].push_back({{"name", family}, {"model", {{"arch", family}}}});
  }
  testing::writeText(dir / "project.json", project.dump(2));
  return dir / "project.json";
}

GenerationSettings greedy(int64_t max_new_tokens, DecoderChoice decoder) {
  GenerationSettings s;
  s.sampling.greedy = true;
  s.max_new_tokens = max_new_tokens;
  s.stop_at_eos = false;
  s.decoder = decoder;
  return s;
}

// Largest |difference| between the two decoders' logits over a greedy run of `steps` tokens (the
// reference's choices drive both), and whether every argmax agreed.
struct Agreement {
  double max_abs_diff = 0;
  bool same_tokens = true;
  std::vector<int64_t> tokens;
};

Agreement compareDecoders(TokenDecoder& reference, TokenDecoder& fast, const std::vector<int64_t>& prompt,
                          int64_t steps) {
  Agreement a;
  at::Tensor r = reference.prefill(prompt), f = fast.prefill(prompt);
  for (int64_t i = 0; i < steps; ++i) {
    a.max_abs_diff = std::max(a.max_abs_diff, (r - f).abs().max().item<double>());
    const int64_t r_id = r.argmax().item<int64_t>(), f_id = f.argmax().item<int64_t>();
    a.same_tokens = a.same_tokens && r_id == f_id;
    a.tokens.push_back(r_id);
    if (i + 1 < steps) {
      r = reference.append(r_id);
      f = fast.append(r_id);
    }
  }
  return a;
}

}  // namespace

class TestGeneration : public QObject {
  Q_OBJECT
  fs::path dir_;
  std::map<std::string, fs::path> runs_;               // run name -> run folder
  std::map<std::string, std::string> default_run_of_;  // family -> its run with default settings
  std::string eval_prompt_;

  fs::path run(const std::string& name) const { return runs_.at(name); }

  void checkAgainstReference(const std::string& name, int64_t prompt_tokens, int64_t steps, double tolerance) {
    torch::NoGradGuard no_grad;
    auto model = loadModelFromCheckpoint(resolveCheckpointDir(run(name)));
    model->eval();
    Generator generator(run(name));
    std::vector<int> ids = generator.encode(eval_prompt_);
    while (static_cast<int64_t>(ids.size()) < prompt_tokens) ids.insert(ids.end(), ids.begin(), ids.end());
    std::vector<int64_t> prompt(ids.begin(), ids.begin() + prompt_tokens);
    std::vector<at::Tensor> weights_before;
    for (const auto& p : model->parameters()) weights_before.push_back(p.clone());
    auto reference = makeTokenDecoder(*model, DecoderChoice::kReference, 0);
    auto fast = makeTokenDecoder(*model, DecoderChoice::kFast, 0);
    const Agreement a = compareDecoders(*reference, *fast, prompt, steps);
    // Decoding never changes the model (softmax_compat's forward rewrites its weights in place).
    const auto weights_after = model->parameters();
    for (size_t i = 0; i < weights_before.size(); ++i) {
      QVERIFY2(torch::equal(weights_before[i], weights_after[i]),
               qPrintable(QString::fromStdString(name + ": decoding changed parameter " + std::to_string(i))));
    }
    QVERIFY2(a.max_abs_diff < tolerance,
             qPrintable(QString("%1: %2 vs %3 logits differ by %4")
                            .arg(QString::fromStdString(name), QString::fromStdString(reference->name()),
                                 QString::fromStdString(fast->name()))
                            .arg(a.max_abs_diff)));
    QVERIFY2(a.same_tokens, qPrintable(QString::fromStdString(name + ": greedy tokens differ")));
    // The whole pipeline too: both decoders through Generator give the same story.
    const auto r = generator.generateFromIds(ids, greedy(steps, DecoderChoice::kReference));
    const auto f = generator.generateFromIds(ids, greedy(steps, DecoderChoice::kFast));
    QCOMPARE(f.ids(), r.ids());
    QCOMPARE(f.text, r.text);
    QVERIFY(!f.ids().empty());
  }

 private Q_SLOTS:
  void initTestCase() {
    at::set_num_threads(2);
    dir_ = testing::makeScratchDir("generation");
    const ProjectConfig project = loadProject(writeProject(dir_));
    for (const RunConfig& run : project.runs) {
      TrainRequest r;
      r.project = &project;
      r.run = run;
      r.run_dir = dir_ / "runs" / run.name;
      QCOMPARE(trainRun(r).state, RunState::Finished);
      runs_[run.name] = r.run_dir;
      if (run.model.options.empty() && run.model.objective == ModelObjective::kNextToken &&
          run.model.kernel_size == 1 && !default_run_of_.count(run.model.arch)) {
        default_run_of_[run.model.arch] = run.name;
      }
    }
    const auto prompts = evalSplitPrompts(run("flat"), 1, 12);
    QCOMPARE(prompts.size(), size_t{1});
    eval_prompt_ = prompts[0].prompt;
  }

  // The cached mixer decoder against the research's fixed-window method, for every mixer variant:
  // a prompt of 20 tokens, then greedy to the window's last position.
  void cachedMixerEqualsFixedWindow_data() {
    QTest::addColumn<QString>("run");
    for (const char* name : {"flat", "kernel3", "expanded", "multi_head", "multi_head_compat", "softmax",
                             "softmax_compat", "inplace_compat", "linear", "mtp"}) {
      QTest::newRow(name) << QString(name);
    }
  }
  // A character split over byte-fallback tokens streams once, whole, with the token that
  // completes it; the tokens before add nothing (they used to add U+FFFD, a "?" glyph on screen).
  void streamedTextHoldsBackUnfinishedCharacters() {
    const std::string replacement = "\xEF\xBF\xBD";
    std::string stable = "Once";
    QCOMPARE(streamedTextDelta(stable, "Once a", "\u2581a"), std::string(" a"));
    QCOMPARE(streamedTextDelta(stable, "Once a" + replacement, "<0xE2>"), std::string());
    QCOMPARE(stable, std::string("Once a"));
    QCOMPARE(streamedTextDelta(stable, "Once a" + replacement + replacement, "<0x82>"), std::string());
    QCOMPARE(streamedTextDelta(stable, "Once a\u20ac", "<0xAC>"), std::string("\u20ac"));
    QCOMPARE(stable, std::string("Once a\u20ac"));
    QCOMPARE(streamedTextDelta(stable, "Twice", "\u2581x"), std::string("\u2581x"));  // no extension: the piece
    QCOMPARE(stable, std::string("Twice"));
  }

  void cachedMixerEqualsFixedWindow() {
    QFETCH(QString, run);
    checkAgainstReference(run.toStdString(), 20, kContext - 20, 1e-4);
  }

  // From the window's middle on, the kernel-1 mixers push each new row into running sums of
  // the later positions instead of pulling every earlier row. A 20-token prompt switches during
  // decoding (above); a prompt past the middle starts pushing from the prefill's rows.
  void cachedMixerPushesFromALongPrompt_data() {
    QTest::addColumn<QString>("run");
    for (const char* name : {"flat", "softmax", "linear", "mtp"}) QTest::newRow(name) << QString(name);
  }
  void cachedMixerPushesFromALongPrompt() {
    QFETCH(QString, run);
    checkAgainstReference(run.toStdString(), kContext - 14, 14, 1e-4);
  }

  // A decoder step runs with one intra-op thread on the CPU (DecodeStepScope); the caller's thread
  // count is back afterwards, for every family.
  void decodingLeavesTheThreadCountAsItWas() {
    QCOMPARE(at::get_num_threads(), 2);
    for (const char* name : {"flat", "llama", "mamba"}) {
      torch::NoGradGuard no_grad;
      auto model = loadModelFromCheckpoint(resolveCheckpointDir(run(name)));
      auto fast = makeTokenDecoder(*model, DecoderChoice::kFast, 0);
      fast->prefill({1, 2, 3});
      fast->append(4);
      QCOMPARE(at::get_num_threads(), 2);
    }
    // Inside a step: one thread when asked for on the CPU, the caller's count otherwise.
    int inside = 0;
    const auto count = [&inside] {
      inside = at::get_num_threads();
      return at::zeros({1});
    };
    runDecodeStep(torch::kCPU, true, count);
    QCOMPARE(inside, 1);
    runDecodeStep(torch::kCPU, false, count);
    QCOMPARE(inside, 2);
    QCOMPARE(at::get_num_threads(), 2);
  }

  // The repetition penalty counts the prompt's tokens, not only the generated ones: for a prompt
  // whose unpenalised next token is one of its own, the penalised choice is the argmax of the
  // logits with the prompt's tokens penalised by HF's rule, worked out here from the decoder's
  // logits.
  void repetitionPenaltyCountsThePrompt() {
    Generator g(run("llama"));
    torch::NoGradGuard no_grad;
    auto model = loadModelFromCheckpoint(resolveCheckpointDir(run("llama")));
    auto decoder = makeTokenDecoder(*model, DecoderChoice::kReference, 0);
    bool found = false;
    for (const char* text : {"Once upon a time, there was a little girl named Lily. Lily", "The cat and the dog",
                             "Tom said to Tom and", "She was happy. She was happy. She"}) {
      const GenerationResult free_run = g.generate(text, greedy(1, DecoderChoice::kFast));
      const std::vector<int>& prompt = free_run.prompt_ids;
      if (std::find(prompt.begin(), prompt.end(), free_run.ids().front()) == prompt.end()) continue;
      found = true;
      at::Tensor logits = decoder->prefill(std::vector<int64_t>(prompt.begin(), prompt.end()));
      for (const int id : std::set<int>(prompt.begin(), prompt.end())) {
        const double l = logits[id].item<double>();
        logits[id] = l > 0 ? l / 10.0 : l * 10.0;
      }
      auto settings = greedy(1, DecoderChoice::kFast);
      settings.sampling.repetition_penalty = 10.0;
      const int penalised = g.generateFromIds(prompt, settings).ids().front();
      QCOMPARE(penalised, static_cast<int>(logits.argmax().item<int64_t>()));
      QVERIFY2(penalised != free_run.ids().front(), text);
    }
    QVERIFY2(found, "no prompt whose next token repeats one of its own: add one");
  }

  // Tokens per second count the generated tokens over prefill plus decode time, which lie inside the
  // wall-clock time of the call: the rate is at least tokens / that time, and at most tokens / the
  // longer of the two phases.
  void tokensPerSecondSpanPrefillAndDecode() {
    Generator g(run("flat"));
    const auto started = std::chrono::steady_clock::now();
    const GenerationResult r = g.generate(eval_prompt_, greedy(12, DecoderChoice::kFast));
    const double call_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    const auto tokens = static_cast<double>(r.tokens.size());
    QCOMPARE(tokens, 12.0);
    QVERIFY(r.prefill_ms > 0 && r.decode_ms > 0);
    QVERIFY(r.prefill_ms + r.decode_ms <= call_ms);
    QVERIFY2(r.tokens_per_s >= tokens / (call_ms / 1000.0) &&
                 r.tokens_per_s <= tokens / (std::max(r.prefill_ms, r.decode_ms) / 1000.0),
             qPrintable(QString("%1 tokens/s for %2 tokens, prefill %3 ms, decode %4 ms, call %5 ms")
                            .arg(r.tokens_per_s)
                            .arg(tokens)
                            .arg(r.prefill_ms)
                            .arg(r.decode_ms)
                            .arg(call_ms)));
  }

  // KV-cache decoding against full recompute; Llama and GPT also past the window (they slide).
  // Every next-token family of the registry, at its defaults: the fast decoder gives the reference's
  // logits and greedy tokens from a 20-token prompt to 20 tokens before the window's end.
  void everyFamilyDecodesLikeItsReference_data() {
    QTest::addColumn<QString>("family");
    for (const std::string& family : testing::nextTokenFamilies()) {
      QTest::newRow(family.c_str()) << QString::fromStdString(family);
    }
  }
  void everyFamilyDecodesLikeItsReference() {
    QFETCH(QString, family);
    const auto found = default_run_of_.find(family.toStdString());
    QVERIFY2(found != default_run_of_.end(), qPrintable(family + " has no run with its defaults"));
    checkAgainstReference(found->second, 20, kContext - 40, 1e-4);
  }

  void kvCacheEqualsRecompute_data() {
    QTest::addColumn<QString>("run");
    QTest::addColumn<int>("steps");
    QTest::newRow("llama") << "llama" << int(kContext + 12);
    QTest::newRow("gpt") << "gpt" << int(kContext + 12);
    QTest::newRow("transfixer") << "transfixer" << int(kContext - 20);
    QTest::newRow("transfixer_parallel") << "transfixer_parallel" << int(kContext - 20);
    QTest::newRow("transfixer_before") << "transfixer_before" << int(kContext - 20);
  }
  void kvCacheEqualsRecompute() {
    QFETCH(QString, run);
    QFETCH(int, steps);
    checkAgainstReference(run.toStdString(), 20, steps, 1e-4);
  }

  // Mamba's recurrent state against the full forward, also past the training length.
  void mambaRecurrentEqualsForward() { checkAgainstReference("mamba", 20, kContext + 12, 1e-4); }

  // The mixer cannot write past position T-1: generation ends there, and the prompt keeps its
  // newest tokens so max_new_tokens fit.
  void mixerStopsAtWindowEnd() {
    Generator g(run("flat"));
    std::vector<int> prompt(10, g.encode("the")[0]);
    auto r = g.generateFromIds(prompt, greedy(kContext, DecoderChoice::kFast));
    QCOMPARE(r.finish, FinishReason::kContextFull);
    QCOMPARE(r.prompt_dropped_tokens, int64_t{9});  // keeps one token, then fills the other T-1 positions
    QCOMPARE(static_cast<int64_t>(r.tokens.size()), kContext - 1);
    r = g.generateFromIds(prompt, greedy(8, DecoderChoice::kFast));
    QCOMPARE(r.finish, FinishReason::kMaxNewTokens);
    QCOMPARE(r.prompt_dropped_tokens, int64_t{0});
    QCOMPARE(r.tokens.size(), size_t{8});
  }

  // The research layout puts pad tokens first so the last new token lands at position T-1; the
  // mixer's outputs depend on absolute positions, so the two layouts give different logits.
  void windowEndPlacementPadsBeforeThePrompt() {
    Generator g(run("flat"));
    auto settings = greedy(6, DecoderChoice::kFast);
    settings.placement = PromptPlacement::kWindowEnd;
    const std::vector<int> prompt = g.encode(eval_prompt_);
    const auto end = g.generateFromIds(prompt, settings);
    QCOMPARE(end.pad_tokens, kContext - static_cast<int64_t>(prompt.size()) - 6);
    settings.decoder = DecoderChoice::kReference;
    QCOMPARE(g.generateFromIds(prompt, settings).ids(), end.ids());
    settings.placement = PromptPlacement::kWindowStart;
    const auto start = g.generateFromIds(prompt, settings);
    QCOMPARE(start.pad_tokens, int64_t{0});
    QVERIFY(start.tokens[0].prob != end.tokens[0].prob);
    // This run trained on packed text, so kAuto starts at position 0.
    settings.placement = PromptPlacement::kAuto;
    QCOMPARE(g.generateFromIds(prompt, settings).pad_tokens, int64_t{0});
  }

  void seedReproducesSampling() {
    Generator g(run("llama"));
    GenerationSettings s;
    s.max_new_tokens = 20;
    s.stop_at_eos = false;
    s.sampling.temperature = 1.5;  // flat enough that two seeds part ways quickly
    s.sampling.seed = 7;
    const auto a = g.generate(eval_prompt_, s);
    const auto b = g.generate(eval_prompt_, s);
    QCOMPARE(a.ids(), b.ids());
    s.sampling.seed = 8;
    QVERIFY(g.generate(eval_prompt_, s).ids() != a.ids());
  }

  // Per token: the text adds up to the story, prob and the top-5 are a distribution's, the chosen
  // greedy token is the top alternative.
  void tokensCarryTextProbabilityAndAlternatives() {
    Generator g(run("flat"));
    std::vector<std::string> streamed;
    const auto r = g.generate(eval_prompt_, greedy(10, DecoderChoice::kFast),
                              [&](const GeneratedToken& t) { streamed.push_back(t.text); });
    QCOMPARE(streamed.size(), r.tokens.size());
    std::string joined;
    for (const auto& t : r.tokens) {
      joined += t.text;
      QCOMPARE(t.top.size(), size_t{5});
      QCOMPARE(t.top[0].id, t.id);
      QVERIFY(std::abs(t.top[0].prob - t.prob) < 1e-12);
      for (size_t i = 1; i < t.top.size(); ++i) QVERIFY(t.top[i].prob <= t.top[i - 1].prob);
      QVERIFY(t.prob > 0 && t.prob <= 1);
    }
    QCOMPARE(joined, r.text);
    QCOMPARE(g.decode(r.ids()).empty(), r.text.empty());
    QVERIFY(r.tokens_per_s > 0);
  }

  // End of text, with stop_at_eos on and off, at a known position k: the free run's first eos, or
  // (when it writes none early) the first new token from the third on, made an eos by a twin
  // checkpoint whose head swaps that token's row with eos's, so greedy writes eos exactly there.
  void endOfTextStopsGenerationOnlyWhenAsked() {
    const auto free_run = Generator(run("flat")).generate(eval_prompt_, greedy(12, DecoderChoice::kFast));
    const fs::path source = resolveCheckpointDir(run("flat"));
    const int eos = Tokenizer::load(checkpointTokenizerFile(source)).eosId();
    auto seen_before = [&](size_t i) {
      for (size_t j = 0; j < i; ++j) {
        if (free_run.tokens[j].id == free_run.tokens[i].id) return true;
      }
      return false;
    };
    size_t k = 0;
    while (k < free_run.tokens.size() && free_run.tokens[k].id != eos && (k < 2 || seen_before(k))) ++k;
    QVERIFY2(k < free_run.tokens.size(), "the free run repeats one token; pick another prompt");
    const int swapped = free_run.tokens[k].id;  // eos itself when the run wrote one
    auto model = loadModelFromCheckpoint(source);
    {
      torch::NoGradGuard no_grad;
      const auto params = model->named_parameters();
      QVERIFY2(params.contains("lm_head.weight"), "the flat mixer has no lm_head.weight: update this test");
      at::Tensor head = params["lm_head.weight"];  // swapping eos with itself changes nothing
      const at::Tensor eos_row = head[eos].clone();
      head[eos].copy_(head[swapped]);
      head[swapped].copy_(eos_row);
    }
    torch::optim::AdamW optimizer(model->parameters());
    const fs::path twin = saveCheckpoint(dir_ / "eos_twin" / "checkpoints", *model, optimizer, readTrainerState(source),
                                         readCheckpointConfig(source), readFile(checkpointTokenizerFile(source)), 1);
    Generator g(twin);

    auto settings = greedy(12, DecoderChoice::kFast);
    settings.stop_at_eos = true;
    const auto stopped = g.generate(eval_prompt_, settings);
    QCOMPARE(finishReasonName(stopped.finish), std::string("eos"));
    QCOMPARE(stopped.tokens.size(), k + 1);  // the tokens before, then eos, then nothing
    QCOMPARE(stopped.tokens.back().id, eos);
    for (size_t i = 0; i < k; ++i) QCOMPARE(stopped.tokens[i].id, free_run.tokens[i].id);

    settings.stop_at_eos = false;  // off: eos is one more token and generation goes on
    const auto past = g.generate(eval_prompt_, settings);
    QCOMPARE(past.finish, FinishReason::kMaxNewTokens);
    QCOMPARE(past.tokens.size(), size_t{12});
    QCOMPARE(past.tokens[k].id, eos);
  }

  void stopStringAndCancel() {
    Generator g(run("flat"));
    const auto free_run = g.generate(eval_prompt_, greedy(30, DecoderChoice::kFast));
    // Stop at the text of the third token onwards: the result is cut before it.
    const std::string stop = free_run.tokens[2].text + free_run.tokens[3].text;
    auto s = greedy(30, DecoderChoice::kFast);
    s.stop_string = stop;
    const auto stopped = g.generate(eval_prompt_, s);
    QCOMPARE(stopped.finish, FinishReason::kStopString);
    QVERIFY(stopped.text.find(stop) == std::string::npos);
    QVERIFY(free_run.text.rfind(stopped.text, 0) == 0);
    std::atomic<bool> cancel{false};
    int seen = 0;
    const auto cancelled = g.generate(
        eval_prompt_, greedy(30, DecoderChoice::kFast),
        [&](const GeneratedToken&) {
          if (++seen == 3) cancel = true;
        },
        &cancel);
    QCOMPARE(cancelled.finish, FinishReason::kCancelled);
    QCOMPARE(cancelled.tokens.size(), size_t{3});
  }

  // Several samples of one prompt run as one decoder batch; sample i is the story generate() gives
  // with seed + i (its own random stream), for the mixer (batched row path), Llama (batched KV cache)
  // and Mamba (batched recurrent state).
  void samplesAreTheStoriesOfConsecutiveSeeds_data() {
    QTest::addColumn<QString>("run");
    for (const char* name : {"flat", "llama", "mamba"}) QTest::newRow(name) << QString(name);
  }
  void samplesAreTheStoriesOfConsecutiveSeeds() {
    QFETCH(QString, run);
    Generator g(this->run(run.toStdString()));
    GenerationSettings s;
    s.max_new_tokens = 14;
    s.stop_at_eos = false;
    s.sampling.temperature = 1.5;  // flat enough that the seeds part ways quickly
    s.sampling.seed = 21;
    const auto samples = g.generateSamples(eval_prompt_, s, 3);
    QCOMPARE(samples.size(), size_t{3});
    std::set<std::vector<int>> distinct;
    for (size_t i = 0; i < samples.size(); ++i) {
      GenerationSettings alone = s;
      alone.sampling.seed = 21 + i;
      const auto single = g.generate(eval_prompt_, alone);
      QCOMPARE(samples[i].ids(), single.ids());
      QCOMPARE(samples[i].text, single.text);
      QCOMPARE(samples[i].finish, single.finish);
      QCOMPARE(samples[i].decoder, single.decoder);
      QCOMPARE(samples[i].prefill_ms, samples[0].prefill_ms);  // one batch: one prefill
      distinct.insert(samples[i].ids());
    }
    QCOMPARE(distinct.size(), size_t{3});
  }

  // Each sample stops on its own: a stop string from sample 0's free run ends sample 0 there while
  // the others go on as their own seeds' stories do; a cancel ends them all after the same step.
  void samplesStopOnTheirOwnAndCancelTogether() {
    Generator g(run("llama"));
    GenerationSettings s;
    s.max_new_tokens = 20;
    s.stop_at_eos = false;
    s.sampling.temperature = 1.5;
    s.sampling.seed = 3;
    const auto free_run = g.generateSamples(eval_prompt_, s, 3);
    s.stop_string = free_run[0].tokens[3].text + free_run[0].tokens[4].text;
    QVERIFY(!s.stop_string.empty());
    const auto stopped = g.generateSamples(eval_prompt_, s, 3);
    QCOMPARE(stopped[0].finish, FinishReason::kStopString);
    QVERIFY(stopped[0].tokens.size() <= 5);
    for (size_t i = 0; i < stopped.size(); ++i) {
      GenerationSettings alone = s;
      alone.sampling.seed = 3 + i;
      const auto single = g.generate(eval_prompt_, alone);
      QCOMPARE(stopped[i].ids(), single.ids());
      QCOMPARE(stopped[i].finish, single.finish);
    }
    QVERIFY2(stopped[1].tokens.size() > stopped[0].tokens.size() || stopped[2].tokens.size() > stopped[0].tokens.size(),
             "both other samples wrote the stop string as early as sample 0: pick another seed");

    s.stop_string.clear();
    std::atomic<bool> cancel{false};
    int seen = 0;
    const auto cancelled = g.generateSamples(
        eval_prompt_, s, 3,
        [&](int sample, const GeneratedToken&) {
          if (sample == 0 && ++seen == 3) cancel = true;
        },
        &cancel);
    for (const auto& r : cancelled) {
      QCOMPARE(r.finish, FinishReason::kCancelled);
      QCOMPARE(r.tokens.size(), size_t{3});
    }
    QVERIFY_THROWS_EXCEPTION(MixerLabError, g.generateSamples(eval_prompt_, s, 0));
  }

  void nonCausalModelsAreRefusedWithAReason() {
    auto model = buildModel(testing::tinyModelConfig("bidirectional_mixer", 32, 16, 1, 8));
    try {
      makeTokenDecoder(*model, DecoderChoice::kFast, 0);
      QFAIL("a bidirectional model was accepted for generation");
    } catch (const MixerLabError& e) {
      QVERIFY(std::string(e.what()).find("bidirectional_mixer") != std::string::npos);
    }
  }
};

QTEST_GUILESS_MAIN(TestGeneration)
#include "test_generation.moc"
