// Fused selective-scan tests (kernels/selective_scan_fused.h): the hand-written forward equals the
// sequential tensor-op reference, its hand-written backward equals the reference's autograd
// gradients for all six inputs (fp64, random shapes with L = 1, odd sizes, D undefined), a
// central-difference gradient check in fp64, and the dispatch rules (unsupported tensors take the
// parallel mode; double backward is refused).
#include <torch/torch.h>
#include <QtTest/QtTest>

#include "kernels/selective_scan.h"
#include "kernels/selective_scan_fused.h"
#include "tests/scan_inputs.h"

using namespace mixerlab::kernels;

namespace {
using mixerlab::testing::randomScanInputs;
using mixerlab::testing::relativeError;
using mixerlab::testing::ScanInputs;
const char* const kInputNames[] = {"u", "delta", "A", "B", "C", "D"};

at::Tensor scan(const ScanInputs& in, ScanMode mode) {
  return selectiveScan(in.u, in.delta, in.A, in.B, in.C, in.D, mode);
}

// Gradients of sum(y * w) with respect to every defined input (zeros where autograd left none:
// with L = 1 nothing depends on A in the reference).
std::vector<at::Tensor> gradients(ScanInputs& in, ScanMode mode, const at::Tensor& w) {
  for (auto* t : in.all()) {
    if (t->defined()) t->mutable_grad() = at::Tensor();
  }
  (scan(in, mode) * w).sum().backward();
  std::vector<at::Tensor> out;
  for (auto* t : in.all()) {
    if (!t->defined()) {
      out.emplace_back();
    } else {
      out.push_back(t->grad().defined() ? t->grad().clone() : torch::zeros_like(*t));
    }
  }
  return out;
}

void addShapeRows() {
  QTest::addColumn<qlonglong>("batch");
  QTest::addColumn<qlonglong>("length");
  QTest::addColumn<qlonglong>("channels");
  QTest::addColumn<qlonglong>("state");
  QTest::addColumn<bool>("withD");
  struct Row {
    qlonglong b, l, e, n;
  };
  const Row rows[] = {{1, 1, 1, 1}, {2, 1, 3, 5}, {3, 7, 5, 3}, {2, 33, 6, 16}, {1, 100, 4, 1}, {5, 13, 9, 7}};
  for (const Row& r : rows) {
    for (bool with_d : {true, false}) {
      QTest::newRow(
          qPrintable(QString("B=%1 L=%2 E=%3 N=%4 %5").arg(r.b).arg(r.l).arg(r.e).arg(r.n).arg(with_d ? "D" : "no D")))
          << r.b << r.l << r.e << r.n << with_d;
    }
  }
}
}  // namespace

class TestSelectiveScanFused : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() { at::set_num_threads(2); }  // two threads: the backward's per-slice sums run

  void forwardMatchesSequential_data() { addShapeRows(); }
  void forwardMatchesSequential() {
    QFETCH(qlonglong, batch);
    QFETCH(qlonglong, length);
    QFETCH(qlonglong, channels);
    QFETCH(qlonglong, state);
    QFETCH(bool, withD);
    torch::manual_seed(static_cast<uint64_t>(batch * 1000 + length * 10 + state));
    auto in = randomScanInputs(batch, length, channels, state, withD, at::kFloat);
    torch::NoGradGuard no_grad;
    const double err = relativeError(scan(in, ScanMode::Fused), scan(in, ScanMode::Sequential));
    QVERIFY2(err < 1e-5, qPrintable(QString("fp32 relative error %1 (tolerance 1e-5)").arg(err)));
  }

  void gradientsMatchSequentialFp64_data() { addShapeRows(); }
  void gradientsMatchSequentialFp64() {
    QFETCH(qlonglong, batch);
    QFETCH(qlonglong, length);
    QFETCH(qlonglong, channels);
    QFETCH(qlonglong, state);
    QFETCH(bool, withD);
    torch::manual_seed(static_cast<uint64_t>(batch * 1000 + length * 10 + state + 1));
    auto in = randomScanInputs(batch, length, channels, state, withD, at::kDouble);
    const auto w = torch::randn({batch, length, channels}, torch::TensorOptions().dtype(at::kDouble));
    QVERIFY(relativeError(scan(in, ScanMode::Fused), scan(in, ScanMode::Sequential)) < 1e-12);
    const auto reference = gradients(in, ScanMode::Sequential, w);
    const auto fused = gradients(in, ScanMode::Fused, w);
    for (size_t i = 0; i < fused.size(); ++i) {
      QCOMPARE(fused[i].defined(), reference[i].defined());  // no D, no D gradient
      if (!fused[i].defined()) continue;
      QCOMPARE(fused[i].sizes(), reference[i].sizes());
      const double err = relativeError(fused[i], reference[i]);
      QVERIFY2(err < 1e-10,
               qPrintable(QString("d/d%1: relative error %2 (tolerance 1e-10)").arg(kInputNames[i]).arg(err)));
    }
  }

  // Central differences of sum(y * w) in fp64, element by element, on a tiny shape.
  void finiteDifferenceCheck() {
    torch::manual_seed(11);
    auto in = randomScanInputs(2, 4, 3, 2, true, at::kDouble);
    const auto w = torch::randn({2, 4, 3}, torch::TensorOptions().dtype(at::kDouble));
    const auto analytic = gradients(in, ScanMode::Fused, w);
    const double eps = 1e-6;
    torch::NoGradGuard no_grad;
    auto loss = [&w](const ScanInputs& inputs) { return (scan(inputs, ScanMode::Fused) * w).sum().item<double>(); };
    for (size_t i = 0; i < analytic.size(); ++i) {
      at::Tensor flat = in.all()[i]->view({-1});
      for (int64_t k = 0; k < flat.numel(); ++k) {
        const double x = flat[k].item<double>();
        flat[k] = x + eps;
        const double plus = loss(in);
        flat[k] = x - eps;
        const double minus = loss(in);
        flat[k] = x;
        const double numeric = (plus - minus) / (2 * eps);
        const double exact = analytic[i].view({-1})[k].item<double>();
        QVERIFY2(std::abs(numeric - exact) <= 1e-6 * (1 + std::abs(exact)),
                 qPrintable(
                     QString("d/d%1[%2]: analytic %3, numeric %4").arg(kInputNames[i]).arg(k).arg(exact).arg(numeric)));
      }
    }
  }

  // One thread or two: the per-slice partial sums give the same gradients.
  void threadCountDoesNotChangeGradients() {
    torch::manual_seed(5);
    auto in = randomScanInputs(3, 17, 5, 4, true, at::kDouble);
    const auto w = torch::randn({3, 17, 5}, torch::TensorOptions().dtype(at::kDouble));
    at::set_num_threads(1);
    const auto one = gradients(in, ScanMode::Fused, w);
    at::set_num_threads(2);
    const auto two = gradients(in, ScanMode::Fused, w);
    for (size_t i = 0; i < one.size(); ++i) QVERIFY2(relativeError(two[i], one[i]) < 1e-12, kInputNames[i]);
  }

  void strongDecaysStayFinite() {
    torch::manual_seed(3);
    auto in = randomScanInputs(2, 70, 4, 3, true, at::kFloat);
    {
      torch::NoGradGuard no_grad;
      in.A.mul_(1e4);  // dt*A far below log(FLT_MIN): every state forgets its past
    }
    auto y = scan(in, ScanMode::Fused);
    QVERIFY(torch::isfinite(y).all().item<bool>());
    QVERIFY(relativeError(y, scan(in, ScanMode::Sequential)) < 1e-5);
    y.sum().backward();
    for (auto* t : in.all()) QVERIFY(torch::isfinite(t->grad()).all().item<bool>());
  }

  void oneAutogradNodePerCall() {
    auto in = randomScanInputs(2, 9, 3, 4, true, at::kFloat);
    auto y = scan(in, ScanMode::Fused);
    QVERIFY(y.grad_fn());
    QVERIFY2(QString::fromStdString(y.grad_fn()->name()).contains("FusedScan"), y.grad_fn()->name().c_str());
    QCOMPARE(y.grad_fn()->next_edges().size(), size_t(6));
  }

  void unsupportedTensorsTakeTheParallelScan() {
    auto in = randomScanInputs(2, 5, 3, 4, true, at::kFloat);
    QVERIFY(fusedScanSupports(in.u, in.delta, in.A, in.B, in.C, in.D));
    QVERIFY(fusedScanSupports(in.u, in.delta, in.A, in.B, in.C, at::Tensor()));
    QVERIFY(!fusedScanSupports(in.u, in.delta, in.A.to(at::kDouble), in.B, in.C, in.D));  // mixed dtypes
    QVERIFY(!fusedScanSupports(in.u.to(at::kBFloat16), in.delta, in.A, in.B, in.C, in.D));
    // Mixed dtypes through selectiveScan: the parallel scan's type promotion, no fused kernel.
    const auto d_double = in.D.to(at::kDouble);
    QVERIFY(!fusedScanSupports(in.u, in.delta, in.A, in.B, in.C, d_double));
    auto y = selectiveScan(in.u, in.delta, in.A, in.B, in.C, d_double, ScanMode::Fused);
    auto reference = selectiveScan(in.u, in.delta, in.A, in.B, in.C, d_double, ScanMode::Parallel);
    QVERIFY(!QString::fromStdString(y.grad_fn()->name()).contains("FusedScan"));
    QVERIFY(torch::equal(y, reference));
  }

  void doubleBackwardIsRefused() {
    auto in = randomScanInputs(1, 3, 2, 2, true, at::kDouble);
    auto y = scan(in, ScanMode::Fused).sum();
    QVERIFY_THROWS_EXCEPTION(std::exception, torch::autograd::grad({y}, {in.u}, {}, true, /*create_graph=*/true));
  }
};

QTEST_APPLESS_MAIN(TestSelectiveScanFused)
#include "test_selective_scan_fused.moc"
