// Selective-scan op tests: the parallel and chunked scans equal the sequential reference loop (values
// and gradients, odd lengths, L = 1, strong decays), plus a timing mode run only with
// MIXERLAB_BENCH_SCAN=1 (ms per forward and per forward+backward call of each mode, the fused one
// included, at B=8, L=512, E=512, N=16). The fused kernel's own tests: test_selective_scan_fused.
// Also the closed-form state after a scan (selective_scan_state.h) that Mamba's decoder prefill uses.
#include <torch/torch.h>
#include <QtTest/QtTest>

#include <cstdlib>
#include <cstring>

#include "kernels/selective_scan.h"
#include "kernels/selective_scan_state.h"
#include "tests/scan_inputs.h"

using namespace mixerlab::kernels;

namespace {
using mixerlab::testing::relativeError;
using mixerlab::testing::ScanInputs;

// Gradients of sum(y * w) with respect to all inputs.
std::vector<at::Tensor> gradients(ScanInputs& in, ScanMode mode, int64_t chunk, const at::Tensor& w) {
  for (auto* t : {&in.u, &in.delta, &in.A, &in.B, &in.C, &in.D}) {
    if (t->grad().defined()) t->mutable_grad().zero_();
  }
  (selectiveScan(in.u, in.delta, in.A, in.B, in.C, in.D, mode, chunk) * w).sum().backward();
  std::vector<at::Tensor> out;
  for (auto* t : {&in.u, &in.delta, &in.A, &in.B, &in.C, &in.D}) {
    // With L = 1 nothing depends on A (h_0 = dt*B*u), so autograd leaves its gradient undefined.
    out.push_back(t->grad().defined() ? t->grad().clone() : torch::zeros_like(*t));
  }
  return out;
}
}  // namespace

class TestSelectiveScan : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() { at::set_num_threads(2); }

  void recurrenceMatchesSequential_data() {
    QTest::addColumn<qlonglong>("length");
    QTest::addColumn<qlonglong>("chunk");
    for (qlonglong length : {1LL, 2LL, 3LL, 7LL, 16LL, 33LL, 100LL}) {
      for (qlonglong chunk : {1LL, 4LL, 64LL}) {
        QTest::newRow(qPrintable(QString("L=%1 chunk=%2").arg(length).arg(chunk))) << length << chunk;
      }
    }
  }
  void recurrenceMatchesSequential() {
    QFETCH(qlonglong, length);
    QFETCH(qlonglong, chunk);
    torch::manual_seed(static_cast<uint64_t>(length * 100 + chunk));
    auto log_a = -torch::rand({3, length, 5, 4}) * 2.0;
    auto b = torch::randn({3, length, 5, 4});
    auto reference = linearRecurrence(log_a, b, ScanMode::Sequential);
    // A direct scalar loop checks the reference itself on one channel.
    {
      double h = 0;
      for (int64_t t = 0; t < length; ++t) {
        h = std::exp(log_a[1][t][2][3].item<double>()) * h + b[1][t][2][3].item<double>();
        QVERIFY(std::abs(reference[1][t][2][3].item<double>() - h) <= 1e-5 * (1 + std::abs(h)));
      }
    }
    for (ScanMode mode : {ScanMode::Parallel, ScanMode::Chunked}) {
      auto h = linearRecurrence(log_a, b, mode, chunk);
      QCOMPARE(h.sizes(), reference.sizes());
      const double err = relativeError(h, reference);
      QVERIFY2(err < 1e-5, qPrintable(QString("%1: relative error %2").arg(scanModeName(mode).c_str()).arg(err)));
    }
  }

  void selectiveScanMatchesSequentialWithGradients_data() {
    QTest::addColumn<qlonglong>("length");
    QTest::addColumn<qlonglong>("chunk");
    QTest::newRow("L=1") << 1LL << 64LL;
    QTest::newRow("L=13 chunk=4") << 13LL << 4LL;
    QTest::newRow("L=64 chunk=16") << 64LL << 16LL;
    QTest::newRow("L=75 chunk=64") << 75LL << 64LL;
  }
  void selectiveScanMatchesSequentialWithGradients() {
    QFETCH(qlonglong, length);
    QFETCH(qlonglong, chunk);
    torch::manual_seed(7);
    auto in = mixerlab::testing::randomScanInputs(2, length, 6, 5);
    auto w = torch::randn({2, length, 6});
    auto y_ref = selectiveScan(in.u, in.delta, in.A, in.B, in.C, in.D, ScanMode::Sequential, chunk);
    auto g_ref = gradients(in, ScanMode::Sequential, chunk, w);
    const char* names[] = {"u", "delta", "A", "B", "C", "D"};
    for (ScanMode mode : {ScanMode::Parallel, ScanMode::Chunked}) {
      auto y = selectiveScan(in.u, in.delta, in.A, in.B, in.C, in.D, mode, chunk);
      QVERIFY2(relativeError(y, y_ref) < 1e-5, scanModeName(mode).c_str());
      auto g = gradients(in, mode, chunk, w);
      for (size_t i = 0; i < g.size(); ++i) {
        const double err = relativeError(g[i], g_ref[i]);
        QVERIFY2(
            err < 1e-5,
            qPrintable(QString("%1: d/d%2 relative error %3").arg(scanModeName(mode).c_str()).arg(names[i]).arg(err)));
      }
    }
  }

  void strongDecaysStayFinite() {
    // Log-decays of -50 per step: the product over a chunk is exp(-3200), far below fp32's range.
    torch::manual_seed(2);
    auto log_a = -50.0 - torch::rand({2, 130, 3});
    auto b = torch::randn({2, 130, 3});
    log_a.requires_grad_(true);
    auto reference = linearRecurrence(log_a, b, ScanMode::Sequential);
    QVERIFY(torch::allclose(reference, b, 1e-6, 1e-6));  // every state forgets its past
    for (ScanMode mode : {ScanMode::Parallel, ScanMode::Chunked}) {
      auto h = linearRecurrence(log_a, b, mode, 64);
      QVERIFY(torch::isfinite(h).all().item<bool>());
      QVERIFY(relativeError(h, reference) < 1e-5);
      h.sum().backward();
      QVERIFY(torch::isfinite(log_a.grad()).all().item<bool>());
      log_a.mutable_grad().zero_();
    }
  }

  void doublePrecisionAgreesClosely() {
    torch::manual_seed(4);
    auto opts = torch::TensorOptions().dtype(torch::kDouble);
    auto log_a = -torch::rand({2, 257, 7}, opts) * 0.1;  // slow decays: long memory
    auto b = torch::randn({2, 257, 7}, opts);
    auto reference = linearRecurrence(log_a, b, ScanMode::Sequential);
    QVERIFY(relativeError(linearRecurrence(log_a, b, ScanMode::Parallel), reference) < 1e-12);
    QVERIFY(relativeError(linearRecurrence(log_a, b, ScanMode::Chunked, 10), reference) < 1e-12);
  }

  // The state after the last position in closed form equals the recurrence run step by step (an
  // explicit loop here, in float64), for lengths below, at and across the chunk size, one position
  // included; in float32 to 1e-5.
  void finalStateEqualsTheRecurrenceStepByStep_data() {
    QTest::addColumn<int>("length");
    QTest::addColumn<int>("chunk");
    QTest::newRow("one position") << 1 << 8;
    QTest::newRow("below a chunk") << 5 << 8;
    QTest::newRow("exactly a chunk") << 8 << 8;
    QTest::newRow("odd, many chunks") << 37 << 8;
    QTest::newRow("default chunk") << 130 << 64;
  }
  void finalStateEqualsTheRecurrenceStepByStep() {
    QFETCH(int, length);
    QFETCH(int, chunk);
    torch::NoGradGuard no_grad;
    torch::manual_seed(length);
    ScanInputs in = mixerlab::testing::randomScanInputs(3, length, 5, 4, false, at::kDouble);
    at::Tensor h = torch::zeros({3, 5, 4}, torch::kDouble);
    for (int64_t t = 0; t < length; ++t) {
      const at::Tensor dt = in.delta.select(1, t).unsqueeze(-1);  // [B, E, 1]
      h = torch::exp(dt * in.A) * h + dt * in.u.select(1, t).unsqueeze(-1) * in.B.select(1, t).unsqueeze(1);
    }
    const at::Tensor closed = selectiveScanFinalState(in.u, in.delta, in.A, in.B, chunk);
    QCOMPARE(closed.sizes().vec(), (std::vector<int64_t>{3, 5, 4}));
    QVERIFY2(relativeError(closed, h) < 1e-12, qPrintable(QString::number(relativeError(closed, h))));
    const at::Tensor single = selectiveScanFinalState(in.u.to(at::kFloat), in.delta.to(at::kFloat), in.A.to(at::kFloat),
                                                      in.B.to(at::kFloat), chunk);
    QCOMPARE(single.scalar_type(), at::kFloat);
    QVERIFY2(relativeError(single.to(at::kDouble), h) < 1e-5, qPrintable(QString::number(relativeError(single, h))));
    // The scan with its final state: the fused CPU kernel keeps its own last states (Fused), the
    // other modes add the closed form; y is the plain scan's either way.
    for (const ScanMode mode : {ScanMode::Fused, ScanMode::Parallel}) {
      const ScanWithState scanned = selectiveScanWithFinalState(in.u, in.delta, in.A, in.B, in.C, {}, mode, chunk);
      const at::Tensor y = selectiveScan(in.u, in.delta, in.A, in.B, in.C, {}, mode, chunk);
      QVERIFY2(relativeError(scanned.y, y) < 1e-12, qPrintable(QString::fromStdString(scanModeName(mode))));
      QVERIFY2(relativeError(scanned.final_state, h) < 1e-12,
               qPrintable(QString::fromStdString(scanModeName(mode)) + " final state " +
                          QString::number(relativeError(scanned.final_state, h))));
    }
  }

  void modeNamesRoundTrip() {
    for (ScanMode mode : {ScanMode::Sequential, ScanMode::Parallel, ScanMode::Chunked, ScanMode::Fused}) {
      QVERIFY(parseScanMode(scanModeName(mode)) == mode);
    }
    QVERIFY_THROWS_EXCEPTION(std::exception, parseScanMode("blelloch"));
  }

  void benchmark() {
    const char* flag = std::getenv("MIXERLAB_BENCH_SCAN");
    if (!flag || std::strcmp(flag, "1") != 0) QSKIP("set MIXERLAB_BENCH_SCAN=1 to time the scan modes");
    torch::manual_seed(0);
    for (ScanMode mode : {ScanMode::Sequential, ScanMode::Parallel, ScanMode::Chunked, ScanMode::Fused}) {
      const double forward_ms = timeSelectiveScanMs(mode, 8, 512, 512, 16, 3, 64);
      const double forward_backward_ms = timeSelectiveScanMs(mode, 8, 512, 512, 16, 3, 64, /*backward=*/true);
      qInfo("selectiveScan %-10s B=8 L=512 E=512 N=16: %.1f ms forward, %.1f ms forward+backward (threads %d)",
            scanModeName(mode).c_str(), forward_ms, forward_backward_ms, at::get_num_threads());
    }
  }
};

QTEST_APPLESS_MAIN(TestSelectiveScan)
#include "test_selective_scan.moc"
