// The cached mixer's fused one-token step and what it is made of: the row kernels of
// kernels/row_kernels.h in every SIMD variant this CPU has, against ATen in float64; the PhaseTeam's
// chunking (every item exactly once, many phases in a row, workers that slept waking for the next
// phase); and the fused step itself against the ATen path and the research's fixed window, on
// models large enough that every product is split over the team, for the variants it covers, with
// the variants it does not cover falling back to ATen by description.
#include <torch/torch.h>
#include <QtTest/QtTest>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>

#include "core/analysis/decoders/token_decoder.h"
#include "core/models/mixers/mixer_row_step.h"
#include "core/models/model_registry.h"
#include "kernels/phase_team.h"
#include "kernels/row_kernels.h"
#include "tests/tiny_model_config.h"

using namespace mixerlab;
namespace k = mixerlab::kernels;

namespace {

std::vector<k::RowSimd> supportedSimd() {
  std::vector<k::RowSimd> out;
  for (auto simd : {k::RowSimd::kGeneric, k::RowSimd::kAvx2, k::RowSimd::kAvx512}) {
    if (k::rowSimdSupported(simd)) out.push_back(simd);
  }
  return out;
}

double maxAbsDiff(const at::Tensor& a, const at::Tensor& b) {
  return (a.to(at::kDouble) - b.to(at::kDouble)).abs().max().item<double>();
}

// The logits a decoder gives along a token sequence: after the prompt, then after each of `tokens`
// (all but the last) is appended.
std::vector<at::Tensor> replay(TokenDecoder& decoder, const std::vector<int64_t>& prompt,
                               const std::vector<int64_t>& tokens) {
  std::vector<at::Tensor> logits{decoder.prefill(prompt)};
  for (size_t i = 0; i + 1 < tokens.size(); ++i) logits.push_back(decoder.append(tokens[i]));
  return logits;
}

// The reference's greedy tokens for `steps` steps.
std::vector<int64_t> greedyTokens(TokenDecoder& reference, const std::vector<int64_t>& prompt, int64_t steps) {
  std::vector<int64_t> tokens;
  at::Tensor logits = reference.prefill(prompt);
  for (int64_t i = 0; i < steps; ++i) {
    tokens.push_back(logits.argmax().item<int64_t>());
    if (i + 1 < steps) logits = reference.append(tokens.back());
  }
  return tokens;
}

// The largest logit difference between two replays, and whether every argmax agreed.
std::pair<double, bool> compare(const std::vector<at::Tensor>& a, const std::vector<at::Tensor>& b) {
  double worst = 0;
  bool same = a.size() == b.size();
  for (size_t i = 0; same && i < a.size(); ++i) {
    worst = std::max(worst, maxAbsDiff(a[i], b[i]));
    same = a[i].argmax().item<int64_t>() == b[i].argmax().item<int64_t>();
  }
  return {worst, same};
}

kernels::ComputePaths withDecodeStep(CachedMixerStepPath path) {
  kernels::ComputePaths paths = kernels::activeComputePaths();
  paths.decode_step = path;
  return paths;
}

constexpr int64_t kContext = 64;

std::shared_ptr<LanguageModel> randomMixer(const nlohmann::json& options, int64_t kernel = 1, bool tied = false,
                                           double norm_eps = 0) {
  torch::manual_seed(7);
  // D=128: the feed-forward's 512 x 128 products and the 1024-token head split into several chunks.
  ModelConfig c = testing::tinyModelConfig("masked_mixer", 1024, 128, 2, kContext, options);
  c.kernel_size = kernel;
  c.tie_weights = tied;
  c.norm_eps = norm_eps;
  auto model = buildModel(c);
  model->eval();
  return model;
}

std::vector<int64_t> promptOf(int64_t length) {
  std::vector<int64_t> ids;
  for (int64_t i = 0; i < length; ++i) ids.push_back((i * 37 + 11) % 1024);
  return ids;
}

}  // namespace

class TestRowDecoding : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { at::set_num_threads(2); }

  // y = W x + b (+ add) for every variant the CPU has, for shapes that leave tails of rows (not a
  // multiple of 4) and of columns (not a multiple of 8 or 16), with and without bias and add.
  void matVecMatchesAtenInEveryVariant() {
    const auto variants = supportedSimd();
    QVERIFY(variants.front() == k::RowSimd::kGeneric);
    qInfo("row SIMD variants here: %zu (active: %s)", variants.size(), k::rowSimdName(k::activeRowSimd()).c_str());
    torch::manual_seed(1);
    for (auto [out, in] : std::vector<std::pair<int64_t, int64_t>>{
             {1, 1}, {3, 5}, {37, 50}, {64, 256}, {130, 1024}, {17, 16}, {4, 33}, {9, 8}}) {
      const at::Tensor w = at::randn({out, in}) / std::sqrt(static_cast<double>(in));
      const at::Tensor x = at::randn({in}), bias = at::randn({out}), add = at::randn({out});
      for (auto simd : variants) {
        for (int with = 0; with < 4; ++with) {
          const bool use_bias = with & 1, use_add = with & 2;
          at::Tensor y = at::full({out}, std::nan(""));
          // Two ranges, as two threads would compute them.
          const int64_t cut = out / 2;
          for (auto [begin, end] : {std::pair<int64_t, int64_t>{0, cut}, {cut, out}}) {
            k::rowMatVec(w.data_ptr<float>(), in, x.data_ptr<float>(), use_bias ? bias.data_ptr<float>() : nullptr,
                         use_add ? add.data_ptr<float>() : nullptr, y.data_ptr<float>(), begin, end, simd);
          }
          at::Tensor expected = w.to(at::kDouble).mv(x.to(at::kDouble));
          if (use_bias) expected += bias.to(at::kDouble);
          if (use_add) expected += add.to(at::kDouble);
          const double diff = maxAbsDiff(y, expected);
          QVERIFY2(diff < 1e-5, qPrintable(QString("%1 %2x%3 bias %4 add %5: %6")
                                               .arg(QString::fromStdString(k::rowSimdName(simd)))
                                               .arg(out)
                                               .arg(in)
                                               .arg(use_bias)
                                               .arg(use_add)
                                               .arg(diff)));
        }
      }
    }
  }

  // Every range kernel writes exactly its range [begin, end) and nothing beside it: outputs and
  // weights are padded, the padding holds a canary, and each call covers a sub-range whose ends are
  // not multiples of the kernels' blocks (4 or 8 rows, 8 or 16 lanes), so a block loop that runs one
  // block too far overwrites a canary (within a row range) or the padding past the last row.
  void rangeKernelsWriteOnlyTheirRange() {
    constexpr float kCanary = 12345.0f;
    constexpr int64_t kPad = 16;
    torch::manual_seed(5);
    const auto untouched = [&](const at::Tensor& y, int64_t begin, int64_t end) {
      const at::Tensor outside = at::cat({y.narrow(0, 0, begin), y.narrow(0, end, y.numel() - end)});
      return outside.eq(kCanary).all().item<bool>();
    };
    for (auto [out, in] : std::vector<std::pair<int64_t, int64_t>>{{7, 9}, {23, 40}, {33, 17}, {64, 24}}) {
      // Rows past `out` exist (so an overrun reads memory) but are never meant to be written.
      const at::Tensor w = at::randn({out + kPad, in}), x = at::randn({in}), bias = at::randn({out + kPad});
      const at::Tensor expected =
          w.narrow(0, 0, out).to(at::kDouble).mv(x.to(at::kDouble)) + bias.narrow(0, 0, out).to(at::kDouble);
      for (auto simd : supportedSimd()) {
        for (auto [begin, end] :
             std::vector<std::pair<int64_t, int64_t>>{{0, out}, {1, out}, {0, out - 1}, {2, out - 3}, {out - 3, out}}) {
          at::Tensor y = at::full({out + kPad}, kCanary);
          k::rowMatVec(w.data_ptr<float>(), in, x.data_ptr<float>(), bias.data_ptr<float>(), nullptr,
                       y.data_ptr<float>(), begin, end, simd);
          const QString what =
              QString("%1 %2x%3 rows [%4, %5)").arg(QString::fromStdString(k::rowSimdName(simd))).arg(out).arg(in);
          QVERIFY2(untouched(y, begin, end), qPrintable(what.arg(begin).arg(end) + ": wrote outside its rows"));
          QVERIFY2(maxAbsDiff(y.narrow(0, begin, end - begin), expected.narrow(0, begin, end - begin)) < 1e-5,
                   qPrintable(what.arg(begin).arg(end)));
        }
      }
    }
    // The causal mix's pull (columns [d_begin, d_end)) and push (rows [begin, end)).
    const int64_t T = 13, D = 45;
    const at::Tensor w = at::randn({T, T}), rows = at::randn({T + 2, D + kPad});
    for (auto [begin, end] : std::vector<std::pair<int64_t, int64_t>>{{0, D}, {3, D}, {0, D - 5}, {9, 26}}) {
      at::Tensor pulled = at::full({D + kPad}, kCanary);
      k::weightedRowSum(w.data_ptr<float>() + 6 * T, 1, rows.data_ptr<float>(), D + kPad, 7, pulled.data_ptr<float>(),
                        begin, end);
      QVERIFY2(untouched(pulled, begin, end), qPrintable(QString("pull [%1, %2)").arg(begin).arg(end)));
      const at::Tensor pull_expected = rows.narrow(0, 0, 7)
                                           .narrow(1, begin, end - begin)
                                           .to(at::kDouble)
                                           .t()
                                           .mv(w[6].narrow(0, 0, 7).to(at::kDouble));
      QVERIFY(maxAbsDiff(pulled.narrow(0, begin, end - begin), pull_expected) < 1e-5);
    }
    const at::Tensor row = at::randn({D});
    for (auto [begin, end] : std::vector<std::pair<int64_t, int64_t>>{{0, T}, {1, T - 2}, {5, 6}}) {
      at::Tensor sums = at::full({T + 2, D}, kCanary);
      sums.narrow(0, begin, end - begin).zero_();
      k::addScaledRow(w.data_ptr<float>() + 4, T, row.data_ptr<float>(), D, sums.data_ptr<float>(), begin, end);
      QVERIFY2(untouched(sums.flatten(), begin * D, end * D), qPrintable(QString("push [%1, %2)").arg(begin).arg(end)));
      const at::Tensor push_expected = at::outer(w.select(1, 4).narrow(0, begin, end - begin), row).to(at::kDouble);
      QVERIFY(maxAbsDiff(sums.narrow(0, begin, end - begin), push_expected) < 1e-5);
    }
  }

  // The chunk forRanges uses is the smallest multiple of `align` that is at least the larger of a
  // quarter of each thread's share and min_items, and at most count (each row worked out by hand).
  void chunkSizeIsTheSmallestAlignedCover() {
    k::PhaseTeam two(2), one(1);
    QCOMPARE(two.chunkSize(128, 1, 16), int64_t(16));  // 128 / 8 = 16, already aligned
    QCOMPARE(two.chunkSize(100, 1, 16), int64_t(16));  // ceil(100 / 8) = 13 -> 16
    QCOMPARE(two.chunkSize(129, 1, 16), int64_t(32));  // ceil(129 / 8) = 17 -> 32
    QCOMPARE(two.chunkSize(128, 1, 1), int64_t(16));
    QCOMPARE(two.chunkSize(10, 7, 1), int64_t(7));  // min_items rules
    QCOMPARE(two.chunkSize(5, 7, 1), int64_t(5));   // never more than count
    QCOMPARE(two.chunkSize(40, 16, 16), int64_t(16));
    QCOMPARE(one.chunkSize(200001, 1, 16), int64_t(50016));  // ceil(200001 / 4) = 50001 -> 50016
    QCOMPARE(one.chunkSize(200001, 1, 1), int64_t(50001));
    QCOMPARE(one.chunkSize(1, 1, 16), int64_t(1));
    k::PhaseTeam four(4);
    QCOMPARE(four.chunkSize(1000, 1, 16), int64_t(64));  // ceil(1000 / 16) = 63 -> 64
  }

  void rowSimdNames() {
    for (auto simd : {k::RowSimd::kGeneric, k::RowSimd::kAvx2, k::RowSimd::kAvx512}) {
      QVERIFY(k::parseRowSimd(k::rowSimdName(simd)) == simd);
    }
    QCOMPARE(k::rowSimdName(k::RowSimd::kAvx512), std::string("avx512"));
    QVERIFY(!k::parseRowSimd("sse9"));
    QVERIFY(!k::parseRowSimd(""));
  }

  // The causal mix's two one-row forms: the weighted sum of the rows so far over a column range,
  // and the rank-1 update of later positions' sums.
  void mixRowKernelsMatchAten() {
    torch::manual_seed(2);
    const int64_t T = 23, D = 37;
    const at::Tensor w = at::randn({T, T}), rows = at::randn({T, D});
    for (int64_t position : {0, 1, 11, 22}) {
      at::Tensor out = at::full({D}, std::nan(""));
      for (auto [begin, end] : {std::pair<int64_t, int64_t>{0, 16}, {16, D}}) {
        k::weightedRowSum(w.data_ptr<float>() + position * T, 1, rows.data_ptr<float>(), D, position + 1,
                          out.data_ptr<float>(), begin, end);
      }
      const at::Tensor expected = rows.narrow(0, 0, position + 1)
                                      .to(at::kDouble)
                                      .t()
                                      .mv(w[position].narrow(0, 0, position + 1).to(at::kDouble));
      QVERIFY2(maxAbsDiff(out, expected) < 1e-5, qPrintable(QString("pull at %1").arg(position)));
    }
    const int64_t position = 9;
    at::Tensor sums = at::randn({T, D});
    const at::Tensor before = sums.clone(), row = at::randn({D});
    k::addScaledRow(w.data_ptr<float>() + (position + 1) * T + position, T, row.data_ptr<float>(), D,
                    sums.data_ptr<float>() + (position + 1) * D, 0, T - 1 - position);
    at::Tensor expected = before.to(at::kDouble);
    expected.narrow(0, position + 1, T - 1 - position)
        .add_(at::outer(w.select(1, position).narrow(0, position + 1, T - 1 - position), row).to(at::kDouble));
    QVERIFY(maxAbsDiff(sums, expected) < 1e-5);
    QVERIFY(
        torch::equal(sums.narrow(0, 0, position + 1), before.narrow(0, 0, position + 1)));  // earlier rows untouched
  }

  void layerNormRowMatchesAten() {
    torch::manual_seed(3);
    const int64_t D = 77;
    const at::Tensor x = at::randn({D}) * 3 + 5, weight = at::randn({D}), bias = at::randn({D});
    at::Tensor out = at::empty({D});
    k::layerNormRow(x.data_ptr<float>(), D, weight.data_ptr<float>(), bias.data_ptr<float>(), 1e-5,
                    out.data_ptr<float>());
    const auto expected = at::layer_norm(x.to(at::kDouble), {D}, weight.to(at::kDouble), bias.to(at::kDouble), 1e-5);
    QVERIFY(maxAbsDiff(out, expected) < 1e-5);
    k::layerNormRow(x.data_ptr<float>(), D, nullptr, nullptr, 0.5, out.data_ptr<float>());
    QVERIFY(maxAbsDiff(out, at::layer_norm(x.to(at::kDouble), {D}, {}, {}, 0.5)) < 1e-5);
  }

  // GELU with erf (approximate="none") over [-12, 12]: the erf approximation is good to ~1.5e-7.
  void geluMatchesAten() {
    const at::Tensor x = at::linspace(-12, 12, 24001);
    at::Tensor y = x.clone();
    k::geluInPlace(y.data_ptr<float>(), 0, y.numel());
    const at::Tensor expected = at::gelu(x.to(at::kDouble));
    const double diff = maxAbsDiff(y, expected);
    QVERIFY2(diff < 1e-6, qPrintable(QString::number(diff)));
    at::Tensor part = x.clone();
    k::geluInPlace(part.data_ptr<float>(), 100, 200);  // only the range
    QVERIFY(torch::equal(part.narrow(0, 0, 100), x.narrow(0, 0, 100)));
    QVERIFY(torch::equal(part.narrow(0, 100, 100), y.narrow(0, 100, 100)));
    QVERIFY(torch::equal(part.narrow(0, 200, 100), x.narrow(0, 200, 100)));
  }

  // forRanges covers [0, count) exactly once with aligned boundaries and ranges of at least
  // min_items (but the last), for teams of 1 to 4 threads.
  void teamCoversEveryItemOnce() {
    for (int threads = 1; threads <= 4; ++threads) {
      k::PhaseTeam team(threads);
      QCOMPARE(team.size(), threads);
      for (int64_t count : {0, 1, 2, 15, 16, 17, 100, 1000, 200001}) {
        for (int64_t min_items : {1, 7, 64}) {
          for (int64_t align : {1, 16}) {
            std::vector<std::atomic<int>> hits(static_cast<size_t>(count));
            std::mutex mutex;
            std::vector<std::pair<int64_t, int64_t>> ranges;
            team.forRanges(count, min_items, align, [&](int64_t begin, int64_t end) {
              for (int64_t i = begin; i < end; ++i) hits[static_cast<size_t>(i)]++;
              std::lock_guard<std::mutex> lock(mutex);
              ranges.emplace_back(begin, end);
            });
            for (int64_t i = 0; i < count; ++i) QCOMPARE(hits[static_cast<size_t>(i)].load(), 1);
            for (auto [begin, end] : ranges) {
              QVERIFY(begin % align == 0);
              QVERIFY(end == count || end - begin >= min_items);
            }
            if (count >= 1000 && threads > 1 && min_items == 1) QVERIFY(ranges.size() > 1);
          }
        }
      }
    }
  }

  // Twenty thousand short phases in a row on more threads than cores, each depending on the last.
  void manyPhasesInARow() {
    k::PhaseTeam team(3);
    std::vector<int64_t> values(4096, 0);
    for (int phase = 0; phase < 20000; ++phase) {
      team.forRanges(4096, 64, 16, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) values[static_cast<size_t>(i)] += phase + i;
      });
    }
    const int64_t phases = 20000, phase_sum = phases * (phases - 1) / 2;
    for (int64_t i = 0; i < 4096; i += 511) QCOMPARE(values[static_cast<size_t>(i)], phase_sum + phases * i);
  }

  // Idle workers go to sleep after ~2 ms; the next phase wakes them: of twelve chunks that each
  // take 4 ms, some run on a worker (the caller alone would need 48 ms for them all, time enough for
  // a woken worker to claim one even on a busy machine). No time is asserted.
  void sleepingWorkersWakeForTheNextPhase() {
    k::PhaseTeam team(3);
    for (int round = 0; round < 3; ++round) {
      std::this_thread::sleep_for(std::chrono::milliseconds(30));
      std::mutex mutex;
      std::set<std::thread::id> threads;
      team.forRanges(12, 1, 1, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(4));
        std::lock_guard<std::mutex> lock(mutex);
        threads.insert(std::this_thread::get_id());
      });
      QVERIFY2(threads.size() >= 2, qPrintable(QString("round %1: one thread did every chunk").arg(round)));
    }
  }

  // A team whose workers sleep, or never ran a phase, shuts down (the test would hang otherwise).
  void teamShutsDownWhileWorkersSleep() {
    { k::PhaseTeam never_used(4); }
    k::PhaseTeam team(3);
    team.forRanges(100, 1, 1, [](int64_t, int64_t) {});
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }

  // The fused step against the ATen path (same model, same decoder, the step path switched) and
  // the research's fixed window, for the variants it covers; prompts that start pulling (5 tokens)
  // and that start pushing (40 of 64), to the window's end.
  void fusedStepEqualsAtenAndFixedWindow_data() {
    QTest::addColumn<QString>("options");
    QTest::addColumn<bool>("tied");
    QTest::addColumn<double>("norm_eps");
    QTest::newRow("flat") << "{}" << false << 0.0;
    QTest::newRow("tied head") << "{}" << true << 0.0;
    QTest::newRow("norm eps 0.5") << "{}" << false << 0.5;
    QTest::newRow("softmax") << R"({"mixing_weights": "softmax"})" << false << 0.0;
    QTest::newRow("softmax_compat") << R"({"mixing_weights": "softmax_compat"})" << false << 0.0;
    QTest::newRow("linear ff, no norms, relu head")
        << R"({"layer_norms": false, "feed_forward": "linear", "head_activation": "relu"})" << false << 0.0;
    QTest::newRow("no ff") << R"({"feed_forward": "none"})" << false << 0.0;
    QTest::newRow("no residual") << R"({"residual": false})" << false << 0.0;
  }
  void fusedStepEqualsAtenAndFixedWindow() {
    QFETCH(QString, options);
    QFETCH(bool, tied);
    QFETCH(double, norm_eps);
    torch::NoGradGuard no_grad;
    auto model = randomMixer(nlohmann::json::parse(options.toStdString()), 1, tied, norm_eps);
    for (int64_t prompt_length : {5, 40}) {
      const auto prompt = promptOf(prompt_length);
      const int64_t steps = kContext - prompt_length;
      auto reference = makeTokenDecoder(*model, DecoderChoice::kReference, 0);
      const auto tokens = greedyTokens(*reference, prompt, steps);
      const auto window = replay(*reference, prompt, tokens);
      auto fused = makeTokenDecoder(*model, DecoderChoice::kFast, 0);
      const auto fused_logits = replay(*fused, prompt, tokens);
      QVERIFY2(fused->stepDescription().find("fused fp32 step") == 0,
               qPrintable(QString::fromStdString(fused->stepDescription())));
      std::vector<at::Tensor> aten_logits;
      {
        const kernels::ScopedComputePaths aten(withDecodeStep(CachedMixerStepPath::kAten));
        auto aten_decoder = makeTokenDecoder(*model, DecoderChoice::kFast, 0);
        aten_logits = replay(*aten_decoder, prompt, tokens);
        QCOMPARE(aten_decoder->stepDescription(), std::string("ATen ops"));
      }
      const auto [window_diff, window_same] = compare(window, fused_logits);
      QVERIFY2(window_diff < 1e-4,
               qPrintable(QString("prompt %1: fused vs fixed window %2").arg(prompt_length).arg(window_diff)));
      QVERIFY(window_same);
      const auto [aten_diff, aten_same] = compare(aten_logits, fused_logits);
      QVERIFY2(aten_diff < 2e-5, qPrintable(QString("prompt %1: fused vs ATen %2").arg(prompt_length).arg(aten_diff)));
      QVERIFY(aten_same);
      const auto [aten_window_diff, aten_window_same] = compare(window, aten_logits);
      QVERIFY2(aten_window_diff < 1e-4,
               qPrintable(QString("prompt %1: ATen vs fixed window %2").arg(prompt_length).arg(aten_window_diff)));
      QVERIFY(aten_window_same);
    }
  }

  // What the fused step does not cover keeps the ATen path, and still matches the fixed window.
  void uncoveredModelsKeepTheAtenPath_data() {
    QTest::addColumn<QString>("options");
    QTest::addColumn<int>("kernel");
    QTest::addColumn<bool>("fp64");
    QTest::newRow("kernel 3") << "{}" << 3 << false;
    QTest::newRow("expanded") << R"({"mixing": "expanded"})" << 1 << false;
    QTest::newRow("multi_head") << R"({"mixing": "multi_head"})" << 1 << false;
    QTest::newRow("float64") << "{}" << 1 << true;
  }
  void uncoveredModelsKeepTheAtenPath() {
    QFETCH(QString, options);
    QFETCH(int, kernel);
    QFETCH(bool, fp64);
    torch::NoGradGuard no_grad;
    auto model = randomMixer(nlohmann::json::parse(options.toStdString()), kernel);
    if (fp64) model->to(at::kDouble);
    auto reference = makeTokenDecoder(*model, DecoderChoice::kReference, 0);
    auto fast = makeTokenDecoder(*model, DecoderChoice::kFast, 0);
    const auto tokens = greedyTokens(*reference, promptOf(30), 8);
    const auto [diff, same] = compare(replay(*reference, promptOf(30), tokens), replay(*fast, promptOf(30), tokens));
    QCOMPARE(fast->stepDescription(), std::string("ATen ops"));
    QVERIFY2(diff < 1e-4, qPrintable(QString::number(diff)));
    QVERIFY(same);
  }

  // The step's team: one thread more than the intra-op threads above 1; one stays one.
  void teamSizeFollowsTheThreadSetting() {
    QCOMPARE(rowStepTeamSize(1), 1);
    QCOMPARE(rowStepTeamSize(2), 3);
    QCOMPARE(rowStepTeamSize(8), 9);
    torch::NoGradGuard no_grad;
    auto model = randomMixer(nlohmann::json::object());
    at::set_num_threads(1);
    auto single = makeTokenDecoder(*model, DecoderChoice::kFast, 0);
    at::set_num_threads(2);
    auto two = makeTokenDecoder(*model, DecoderChoice::kFast, 0);
    single->prefill(promptOf(3));
    two->prefill(promptOf(3));
    QVERIFY2(single->stepDescription().find(", 1 thread)") != std::string::npos,
             qPrintable(QString::fromStdString(single->stepDescription())));
    QVERIFY2(two->stepDescription().find(", 3 threads)") != std::string::npos,
             qPrintable(QString::fromStdString(two->stepDescription())));
    // Both give the same logits: the chunks are fixed, whichever thread runs them.
    at::Tensor a = single->append(9), b = two->append(9);
    QVERIFY(torch::equal(a, b));
  }
};

QTEST_GUILESS_MAIN(TestRowDecoding)
#include "test_row_decoding.moc"
