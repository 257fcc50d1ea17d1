// Batched decoding (decoding at batch 16): every decoder, fast and reference, steps a
// batch of sequences in lockstep, and row b of the batch's logits is what the same decoder gives
// prompt b alone, at every step, for every family and mixer variant: past the middle of the mixer's
// window (where the kernel-1 mix switches from pulling to pushing rows; also from a prompt that
// starts past it), past the window where
// Llama and GPT slide, past the training length for Mamba. Batches a lockstep decoder cannot hold
// (prompts of different lengths, a wrong number of new tokens, ids outside the vocabulary) are
// refused with a message naming the problem.
#include <torch/torch.h>
#include <QtTest/QtTest>

#include "core/analysis/decoders/graphed_step.h"
#include "core/analysis/decoders/token_decoder.h"
#include "core/models/model_registry.h"
#include "core/util/error.h"
#include "kernels/environment/compute_paths.h"
#include "tests/model_checks.h"
#include "tests/tiny_model_config.h"

using namespace mixerlab;

namespace {

constexpr int64_t kVocab = 64, kContext = 24, kBatch = 3;

std::shared_ptr<LanguageModel> tinyModel(const std::string& arch, const nlohmann::json& options, int64_t kernel) {
  ModelConfig c = testing::tinyModelConfig(arch, kVocab, 32, 2, kContext, options);
  c.kernel_size = kernel;
  torch::manual_seed(11);
  auto model = buildModel(c);
  model->eval();
  return model;
}

std::vector<std::vector<int64_t>> distinctPrompts(int64_t tokens = 6) {
  std::vector<std::vector<int64_t>> prompts;
  for (int64_t b = 0; b < kBatch; ++b) {
    std::vector<int64_t> prompt;
    for (int64_t i = 0; i < tokens; ++i) prompt.push_back((7 + 13 * b + 5 * i * (b + 1)) % kVocab);
    prompts.push_back(prompt);
  }
  return prompts;
}

// One sequence decoded alone: its logits after the prompt and after each appended token, where each
// appended token is the argmax of the logits before it.
struct SingleRun {
  std::vector<at::Tensor> logits;
  std::vector<int64_t> appended;
};

SingleRun decodeAlone(TokenDecoder& decoder, const std::vector<int64_t>& prompt, int64_t steps) {
  SingleRun run;
  run.logits.push_back(decoder.prefill(prompt).clone());
  for (int64_t i = 1; i < steps; ++i) {
    run.appended.push_back(run.logits.back().argmax().item<int64_t>());
    run.logits.push_back(decoder.append(run.appended.back()).clone());
  }
  return run;
}

template <typename Fn>
QString errorOf(Fn&& fn) {
  try {
    fn();
  } catch (const MixerLabError& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

}  // namespace

class TestBatchDecoding : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { at::set_num_threads(2); }

  void batchRowsEqualEachSequenceDecodedAlone_data() {
    QTest::addColumn<QString>("arch");
    QTest::addColumn<QString>("options");
    QTest::addColumn<int>("kernel");
    QTest::addColumn<int>("steps");
    QTest::addColumn<int>("prompt");
    const int to_window_end = static_cast<int>(kContext - 6);
    const int past_window = static_cast<int>(kContext + 6);
    QTest::newRow("mixer flat") << "masked_mixer"
                                << "{}" << 1 << to_window_end << 6;
    QTest::newRow("mixer kernel 3") << "masked_mixer"
                                    << "{}" << 3 << to_window_end << 6;
    QTest::newRow("mixer expanded") << "masked_mixer"
                                    << R"({"mixing": "expanded"})" << 1 << to_window_end << 6;
    QTest::newRow("mixer multi-head") << "masked_mixer"
                                      << R"({"mixing": "multi_head"})" << 1 << to_window_end << 6;
    QTest::newRow("mixer multi-head compat")
        << "masked_mixer"
        << R"({"mixing": "multi_head", "multi_head_compat": true})" << 1 << to_window_end << 6;
    QTest::newRow("mixer softmax") << "masked_mixer"
                                   << R"({"mixing_weights": "softmax"})" << 1 << to_window_end << 6;
    QTest::newRow("mixer softmax compat") << "masked_mixer"
                                          << R"({"mixing_weights": "softmax_compat"})" << 1 << to_window_end << 6;
    QTest::newRow("mixer linear relu head")
        << "masked_mixer"
        << R"({"layer_norms": false, "feed_forward": "linear", "head_activation": "relu"})" << 1 << to_window_end << 6;
    // Prompts past the window's middle: the kernel-1 mix pushes from the prefill's rows on.
    QTest::newRow("mixer flat long prompt") << "masked_mixer"
                                            << "{}" << 1 << 8 << 16;
    QTest::newRow("mixer softmax long prompt") << "masked_mixer"
                                               << R"({"mixing_weights": "softmax"})" << 1 << 8 << 16;
    QTest::newRow("llama slides") << "llama"
                                  << "{}" << 1 << past_window << 6;
    QTest::newRow("gpt slides") << "gpt"
                                << "{}" << 1 << past_window << 6;
    QTest::newRow("transfixer") << "transfixer"
                                << "{}" << 1 << to_window_end << 6;
    QTest::newRow("transfixer before attention")
        << "transfixer"
        << R"({"conv_placement": "before_attention", "conv_kernel_size": 3})" << 1 << to_window_end << 6;
    QTest::newRow("mamba past the training length") << "mamba"
                                                    << "{}" << 1 << past_window << 6;
  }

  void batchRowsEqualEachSequenceDecodedAlone() {
    QFETCH(QString, arch);
    QFETCH(QString, options);
    QFETCH(int, kernel);
    QFETCH(int, steps);
    QFETCH(int, prompt);
    torch::NoGradGuard no_grad;
    auto model = tinyModel(arch.toStdString(), nlohmann::json::parse(options.toStdString()), kernel);
    const auto prompts = distinctPrompts(prompt);
    for (const DecoderChoice choice : {DecoderChoice::kFast, DecoderChoice::kReference}) {
      std::vector<SingleRun> alone;
      for (const auto& one : prompts) alone.push_back(decodeAlone(*makeTokenDecoder(*model, choice, 0), one, steps));
      auto batched = makeTokenDecoder(*model, choice, 0);
      const std::string what = arch.toStdString() + " " + batched->name();
      at::Tensor logits = batched->prefillBatch(prompts);
      for (int step = 0; step < steps; ++step) {
        QCOMPARE(logits.sizes().vec(), (std::vector<int64_t>{kBatch, kVocab}));
        QCOMPARE(logits.scalar_type(), at::kDouble);
        for (int64_t b = 0; b < kBatch; ++b) {
          const double diff =
              (logits[b] - alone[static_cast<size_t>(b)].logits[static_cast<size_t>(step)]).abs().max().item<double>();
          QVERIFY2(diff < 1e-4, qPrintable(QString("%1: sequence %2 at step %3 differs from its own decode by %4")
                                               .arg(QString::fromStdString(what))
                                               .arg(b)
                                               .arg(step)
                                               .arg(diff)));
        }
        // The prompts differ, so must the rows: a batch that copied sequence 0 everywhere fails above,
        // unless the model ignores its input; this says which.
        QVERIFY2((logits[0] - logits[1]).abs().max().item<double>() > 1e-6,
                 qPrintable(QString::fromStdString(what + ": two prompts gave the same logits")));
        if (step + 1 == steps) break;
        std::vector<int64_t> next;
        for (const auto& run : alone) next.push_back(run.appended[static_cast<size_t>(step)]);
        logits = batched->appendBatch(next);
      }
    }
  }

  // MIXERLAB_DECODE_GRAPHS=on: the static steps of the cached mixer (flat, kernel-1), the KV cache
  // (Llama, GPT) and Mamba, which a GPU replays as CUDA graphs (graphed_step.h), run eagerly here and
  // give the usual steps' logits, for one sequence and a batch, early and late in the window; a
  // kernel-3 mixer and the Transfixer keep their usual paths and say so.
  void staticStepsEqualTheUsualSteps_data() {
    QTest::addColumn<QString>("arch");
    QTest::addColumn<QString>("options");
    QTest::addColumn<int>("kernel");
    QTest::addColumn<int>("batch");
    QTest::addColumn<int>("prompt");
    QTest::addColumn<bool>("static_step");
    QTest::newRow("mixer flat, one sequence") << "masked_mixer"
                                              << "{}" << 1 << 1 << 6 << true;
    QTest::newRow("mixer flat, batch") << "masked_mixer"
                                       << "{}" << 1 << 3 << 6 << true;
    QTest::newRow("mixer softmax, batch, long prompt") << "masked_mixer"
                                                       << R"({"mixing_weights": "softmax"})" << 1 << 3 << 16 << true;
    QTest::newRow("mixer linear relu head")
        << "masked_mixer"
        << R"({"layer_norms": false, "feed_forward": "linear", "head_activation": "relu"})" << 1 << 2 << 6 << true;
    QTest::newRow("mixer kernel 3 keeps its path") << "masked_mixer"
                                                   << "{}" << 3 << 2 << 6 << false;
    QTest::newRow("llama, one sequence") << "llama"
                                         << "{}" << 1 << 1 << 6 << true;
    QTest::newRow("llama, batch, long prompt") << "llama"
                                               << "{}" << 1 << 3 << 16 << true;
    QTest::newRow("gpt, batch") << "gpt"
                                << "{}" << 1 << 2 << 6 << true;
    QTest::newRow("transfixer keeps its path") << "transfixer"
                                               << "{}" << 1 << 2 << 6 << false;
    QTest::newRow("mamba, one sequence") << "mamba"
                                         << "{}" << 1 << 1 << 6 << true;
    QTest::newRow("mamba, batch") << "mamba"
                                  << "{}" << 1 << 3 << 6 << true;
  }
  void staticStepsEqualTheUsualSteps() {
    QFETCH(QString, arch);
    QFETCH(QString, options);
    QFETCH(int, kernel);
    QFETCH(int, batch);
    QFETCH(int, prompt);
    QFETCH(bool, static_step);
    torch::NoGradGuard no_grad;
    auto model = tinyModel(arch.toStdString(), nlohmann::json::parse(options.toStdString()), kernel);
    auto prompts = distinctPrompts(prompt);
    prompts.resize(static_cast<size_t>(batch));
    const int steps = static_cast<int>(kContext - prompt);
    auto decode = [&](bool graphs, std::string& description) {
      mixerlab::kernels::ComputePaths paths = mixerlab::kernels::activeComputePaths();
      paths.decode_graphs = graphs;
      const mixerlab::kernels::ScopedComputePaths scope(paths);
      auto decoder = makeTokenDecoder(*model, DecoderChoice::kFast, 0);
      std::vector<at::Tensor> logits{decoder->prefillBatch(prompts)};
      for (int step = 1; step < steps; ++step) {
        const at::Tensor chosen = logits.back().argmax(1);
        logits.push_back(
            decoder->appendBatch(std::vector<int64_t>(chosen.data_ptr<int64_t>(), chosen.data_ptr<int64_t>() + batch)));
      }
      description = decoder->stepDescription();
      return logits;
    };
    std::string usual_description, static_description;
    const auto usual = decode(false, usual_description);
    const auto stepped = decode(true, static_description);
    QCOMPARE(stepped.size(), usual.size());
    for (size_t i = 0; i < usual.size(); ++i) {
      const double diff = (stepped[i] - usual[i]).abs().max().item<double>();
      QVERIFY2(diff < 1e-4, qPrintable(QString("step %1 differs by %2").arg(i).arg(diff)));
    }
    QCOMPARE(static_description == "static step, eager", static_step);
    QVERIFY(usual_description.find("static") == std::string::npos);
  }

  // A decoder reused for a new batch (another size, new caches) builds a new static step: one kept
  // from the last batch would write into its old buffers.
  void staticStepFollowsANewBatch() {
    torch::NoGradGuard no_grad;
    for (const std::string& arch : testing::nextTokenFamilies()) {
      auto model = tinyModel(arch, nlohmann::json::object(), 1);
      const auto prompts = distinctPrompts();
      auto usual = makeTokenDecoder(*model, DecoderChoice::kFast, 0);
      usual->prefill(prompts[2]);
      const at::Tensor expected = usual->append(9);
      mixerlab::kernels::ComputePaths paths = mixerlab::kernels::activeComputePaths();
      paths.decode_graphs = true;
      const at::Tensor got = [&] {
        const mixerlab::kernels::ScopedComputePaths scope(paths);
        auto reused = makeTokenDecoder(*model, DecoderChoice::kFast, 0);
        reused->prefillBatch(prompts);
        reused->appendBatch({1, 2, 3});
        reused->appendBatch({4, 5, 6});
        reused->prefill(prompts[2]);
        return reused->append(9);
      }();
      QVERIFY2((got - expected).abs().max().item<double>() < 1e-4, arch.c_str());
    }
  }

  // A decoder reads the model's weights afresh at each prefill: after the weights change (more
  // training between two generations), a reused decoder gives what a new one gives, for every
  // next-token family of the registry (a decoder that kept per-layer values from its first prompt
  // would decode the new prompt with the old weights).
  void aReusedDecoderReadsTheWeightsAtEachPrefill() {
    torch::NoGradGuard no_grad;
    int checked = 0;
    for (const std::string& arch : testing::nextTokenFamilies()) {
      auto model = tinyModel(arch, nlohmann::json::object(), 1);
      const auto prompts = distinctPrompts();
      auto reused = makeTokenDecoder(*model, DecoderChoice::kFast, 0);
      reused->prefillBatch(prompts);
      reused->appendBatch({1, 2, 3});
      torch::manual_seed(5);
      for (auto& p : model->parameters()) p.add_(torch::randn_like(p) * 0.05);
      const at::Tensor got = reused->prefillBatch(prompts);
      const at::Tensor expected = makeTokenDecoder(*model, DecoderChoice::kFast, 0)->prefillBatch(prompts);
      const double diff = (got - expected).abs().max().item<double>();
      QVERIFY2(diff < 1e-5, qPrintable(QString("%1: %2").arg(QString::fromStdString(arch)).arg(diff)));
      const at::Tensor step = reused->appendBatch({4, 5, 6});
      auto fresh = makeTokenDecoder(*model, DecoderChoice::kFast, 0);
      fresh->prefillBatch(prompts);
      QVERIFY2((step - fresh->appendBatch({4, 5, 6})).abs().max().item<double>() < 1e-5, arch.c_str());
      ++checked;
    }
    QVERIFY(checked >= 5);
  }

  // The one-sequence calls are a batch of one: same logits as prefillBatch/appendBatch with B = 1.
  void oneSequenceCallsAreABatchOfOne() {
    torch::NoGradGuard no_grad;
    auto model = tinyModel("llama", nlohmann::json::object(), 1);
    auto single = makeTokenDecoder(*model, DecoderChoice::kFast, 0);
    auto batch = makeTokenDecoder(*model, DecoderChoice::kFast, 0);
    const auto prompt = distinctPrompts()[1];
    QCOMPARE(single->prefill(prompt).sizes().vec(), std::vector<int64_t>{kVocab});
    QVERIFY(torch::equal(batch->prefillBatch({prompt})[0], single->prefill(prompt)));
    QVERIFY(torch::equal(batch->appendBatch({5})[0], single->append(5)));
  }

  void batchesALockstepDecoderCannotHoldAreRefusedByName_data() {
    QTest::addColumn<QString>("arch");
    QTest::addColumn<int>("choice");
    for (const std::string& arch : testing::nextTokenFamilies()) {
      QTest::newRow((arch + " fast").c_str()) << QString::fromStdString(arch) << int(DecoderChoice::kFast);
      QTest::newRow((arch + " reference").c_str()) << QString::fromStdString(arch) << int(DecoderChoice::kReference);
    }
  }
  void batchesALockstepDecoderCannotHoldAreRefusedByName() {
    QFETCH(QString, arch);
    QFETCH(int, choice);
    torch::NoGradGuard no_grad;
    auto model = tinyModel(arch.toStdString(), nlohmann::json::object(), 1);
    auto decoder = makeTokenDecoder(*model, static_cast<DecoderChoice>(choice), 0);
    const QString ragged = errorOf([&] { decoder->prefillBatch({{1, 2, 3}, {4, 5}}); });
    QVERIFY2(ragged.contains("prompt 0 has 3 tokens and prompt 1 has 2"), qPrintable(ragged));
    const QString none = errorOf([&] { decoder->prefillBatch({}); });
    QVERIFY2(none.contains("no sequences"), qPrintable(none));
    const QString empty = errorOf([&] { decoder->prefillBatch({{}, {}}); });
    QVERIFY2(empty.contains("at least one prompt token"), qPrintable(empty));
    decoder->prefillBatch({{1, 2}, {3, 4}});
    const QString count = errorOf([&] { decoder->appendBatch({5}); });
    QVERIFY2(count.contains("holds 2 sequences but was given 1 tokens"), qPrintable(count));
    const QString vocabulary = errorOf([&] { decoder->appendBatch({5, kVocab + 3}); });
    QVERIFY2(vocabulary.contains("token id 67 is outside the vocabulary (0..63)"), qPrintable(vocabulary));
    const QString in_prompt = errorOf([&] { decoder->prefillBatch({{1, -2}}); });
    QVERIFY2(in_prompt.contains("token id -2 is outside"), qPrintable(in_prompt));
  }

  // Every limit exactly at its boundary, for every next-token family of the registry and both
  // decoder choices, one sequence (the fused step) and a batch: ids 0 and V-1 are accepted and V and
  // -1 refused by every decoder (a family may generate through the references alone); a prompt of exactly
  // T tokens is accepted; a family that stops at the window's end accepts appends up to position
  // T-1 and refuses the next by name, a prompt of T+1 tokens too; the others append past T.
  void limitsHoldExactlyAtTheBoundary_data() {
    QTest::addColumn<QString>("arch");
    QTest::addColumn<int>("choice");
    QTest::addColumn<int>("batch");
    for (const std::string& arch : testing::nextTokenFamilies()) {
      for (const int batch : {1, 2}) {
        for (const auto choice : {DecoderChoice::kFast, DecoderChoice::kReference}) {
          const std::string row =
              arch + (choice == DecoderChoice::kFast ? " fast" : " reference") + " batch " + std::to_string(batch);
          QTest::newRow(row.c_str()) << QString::fromStdString(arch) << int(choice) << batch;
        }
      }
    }
  }
  void limitsHoldExactlyAtTheBoundary() {
    QFETCH(QString, arch);
    QFETCH(int, choice);
    QFETCH(int, batch);
    torch::NoGradGuard no_grad;
    auto model = tinyModel(arch.toStdString(), nlohmann::json::object(), 1);
    const auto policy = contextPolicy(nextTokenModel(*model));
    const auto prompts = [&](int64_t length, int64_t first_id) {
      std::vector<std::vector<int64_t>> out(static_cast<size_t>(batch));
      for (int64_t b = 0; b < batch; ++b) {
        for (int64_t i = 0; i < length; ++i) out[static_cast<size_t>(b)].push_back((first_id + 5 * i + b) % kVocab);
      }
      return out;
    };
    const std::vector<int64_t> last_ids(static_cast<size_t>(batch), kVocab - 1),
        zero_ids(static_cast<size_t>(batch), 0);
    auto decoder = makeTokenDecoder(*model, static_cast<DecoderChoice>(choice), 0);

    // The vocabulary's ends, in the prompt and appended.
    auto edge_prompt = prompts(3, 1);
    edge_prompt[0] = {0, kVocab - 1, 0};
    if (batch > 1) edge_prompt[1] = {kVocab - 1, 0, kVocab - 1};
    QCOMPARE(decoder->prefillBatch(edge_prompt).sizes().vec(), (std::vector<int64_t>{batch, kVocab}));
    QCOMPARE(decoder->appendBatch(last_ids).size(0), int64_t{batch});
    QCOMPARE(decoder->appendBatch(zero_ids).size(0), int64_t{batch});
    {
      for (const int64_t bad : {kVocab, int64_t{-1}}) {
        std::vector<int64_t> ids(static_cast<size_t>(batch), 1);
        ids.back() = bad;
        const QString appended = errorOf([&] { decoder->appendBatch(ids); });
        QVERIFY2(appended.contains(QString("token id %1 is outside the vocabulary (0..%2)").arg(bad).arg(kVocab - 1)),
                 qPrintable(QString("appending %1: %2").arg(bad).arg(appended)));
        auto bad_prompt = prompts(3, 1);
        bad_prompt.back()[1] = bad;
        const QString prefilled = errorOf([&] { decoder->prefillBatch(bad_prompt); });
        QVERIFY2(prefilled.contains(QString("token id %1 is outside").arg(bad)),
                 qPrintable(QString("prompt with %1: %2").arg(bad).arg(prefilled)));
      }
    }

    // The window's end: a prompt of T tokens, then (stopping families) nothing more; T-1 tokens, then
    // exactly one append.
    const auto full = decoder->prefillBatch(prompts(kContext, 2));
    QVERIFY(torch::isfinite(full).all().item<bool>());
    if (policy == ContextPolicy::kStopAtWindowEnd) {
      const QString past = errorOf([&] { decoder->appendBatch(zero_ids); });
      QVERIFY2(past.contains("window is full (" + QString::number(kContext) + " tokens)"), qPrintable(past));
      const QString long_prompt = errorOf([&] { decoder->prefillBatch(prompts(kContext + 1, 2)); });
      QVERIFY2(long_prompt.contains(QString::number(kContext + 1)) && long_prompt.contains(QString::number(kContext)),
               qPrintable(long_prompt));
      decoder->prefillBatch(prompts(kContext - 1, 2));
      QVERIFY(torch::isfinite(decoder->appendBatch(last_ids)).all().item<bool>());  // writes position T-1
      const QString after_last = errorOf([&] { decoder->appendBatch(last_ids); });
      QVERIFY2(after_last.contains("window is full"), qPrintable(after_last));
    } else {
      for (int i = 0; i < 3; ++i) QVERIFY(torch::isfinite(decoder->appendBatch(last_ids)).all().item<bool>());
    }
  }
};

QTEST_GUILESS_MAIN(TestBatchDecoding)
#include "test_batch_decoding.moc"
