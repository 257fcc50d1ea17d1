// Kernel reference tests: the custom
// causal token mix equals the autograd path it replaced (forward, dx, dW, dbias; fp32 1e-6 and
// fp64 1e-12 relative, dW exactly zero above the diagonal), its GEMM blocks agree with one dense
// GEMM, central differences in fp64, the dispatch from maskedTokenMix, autocast; the fused residual
// add + LayerNorm equals at::layer_norm(x + r) forward and backward. GPU rows compare the CUDA
// paths with the CPU reference (fp32 1e-4, bf16 / fp16 2e-2 relative) and skip without a GPU.
#include <torch/torch.h>
#include <QtTest/QtTest>

#include "core/train/mixed_precision.h"
#include "kernels/call_timing.h"
#include "kernels/causal_token_mix.h"
#include "kernels/masked_token_mix.h"
#include "kernels/residual_layer_norm.h"
#include "kernels/selective_scan.h"

using namespace mixerlab::kernels;

namespace {

// max |a - b| / max |b|: one relative error for the whole tensor.
double relativeError(const at::Tensor& a, const at::Tensor& b) {
  const at::Tensor ad = a.to(at::kDouble).cpu(), bd = b.to(at::kDouble).cpu();
  const double scale = std::max(bd.abs().max().item<double>(), 1e-30);
  return (ad - bd).abs().max().item<double>() / scale;
}

#define CHECK_CLOSE(a, b, tol, what)                                                                                   \
  do {                                                                                                                 \
    const double err_ = relativeError((a), (b));                                                                       \
    QVERIFY2(err_ <= (tol), qPrintable(QString("%1: relative error %2 (tolerance %3)").arg(what).arg(err_).arg(tol))); \
  } while (0)

// QSKIP returns from the test function, so it must be expanded there.
#ifdef MIXERLAB_WITH_CUDA
#define KERNEL_NOTE()
#else
#define KERNEL_NOTE() qWarning("built without MIXERLAB_WITH_CUDA: the GPU runs the reference ops, not the CUDA kernels")
#endif
#define SKIP_WITHOUT_GPU()                                                                                      \
  do {                                                                                                          \
    if (!torch::cuda::is_available()) QSKIP("no CUDA device (or a CPU-only LibTorch): GPU comparison skipped"); \
    KERNEL_NOTE();                                                                                              \
  } while (0)

// Element k (row-major order) of any tensor, strided or not, as a 0-dim view.
at::Tensor elementOf(const at::Tensor& t, int64_t k) {
  at::Tensor e = t;
  int64_t index = k;
  std::vector<int64_t> idx(static_cast<size_t>(t.dim()));
  for (int64_t d = t.dim() - 1; d >= 0; --d) {
    idx[static_cast<size_t>(d)] = index % t.size(d);
    index /= t.size(d);
  }
  for (int64_t d = 0; d < t.dim(); ++d) e = e.select(0, idx[static_cast<size_t>(d)]);
  return e;
}

struct MixCase {
  at::Tensor x, weight, bias;  // weight [T, T]; bias [T] or undefined
};

// x is a non-contiguous view when `strided_x` (a narrow of a wider tensor), weight a select of a
// [T, T, 2] parameter (as MaskedTokenConv's kernel taps), so the op sees the layouts models give it.
MixCase mixCase(int64_t batch, int64_t length, int64_t context, int64_t width, bool with_bias, bool strided_x,
                at::ScalarType dtype, const at::Device& device = at::kCPU) {
  const auto opts = at::TensorOptions().dtype(dtype).device(device);
  MixCase c;
  at::Tensor wide = at::randn({batch, length, width + (strided_x ? 3 : 0)}, opts);
  c.x = (strided_x ? wide.narrow(2, 1, width) : wide).detach().requires_grad_(true);
  at::Tensor taps = (at::randn({context, context, 2}, opts) / std::sqrt(double(context))).requires_grad_(true);
  c.weight = taps.select(2, 1);
  c.weight.retain_grad();
  if (with_bias) c.bias = at::randn({context}, opts).requires_grad_(true);
  return c;
}

struct MixResult {
  at::Tensor y, dx, dw, dbias;
};

MixResult runMix(MixCase& c, const at::Tensor& w_out, bool custom) {
  for (at::Tensor* t : {&c.x, &c.weight, &c.bias}) {
    if (t->defined()) t->mutable_grad() = at::Tensor();
  }
  const at::Tensor y = custom ? causalTokenMix(c.x, c.weight, c.bias)
                              : maskedTokenMixAutograd(c.x, c.weight, c.bias, TokenMask::kCausal);
  (y * w_out).sum().backward();
  return {y.detach(), c.x.grad().clone(), c.weight.grad().clone(),
          c.bias.defined() ? c.bias.grad().clone() : at::Tensor()};
}

void addMixRows() {
  QTest::addColumn<qlonglong>("batch");
  QTest::addColumn<qlonglong>("length");
  QTest::addColumn<qlonglong>("context");
  QTest::addColumn<qlonglong>("width");
  QTest::addColumn<bool>("withBias");
  QTest::addColumn<bool>("stridedX");
  struct Row {
    qlonglong b, l, t, d;
    bool bias, strided;
  };
  const Row rows[] = {{1, 1, 1, 1, true, false},    {2, 5, 5, 3, true, false},    {3, 7, 12, 4, false, true},
                      {2, 64, 64, 16, true, false}, {4, 130, 130, 9, true, true}, {2, 300, 310, 8, false, false}};
  for (const Row& r : rows) {
    QTest::newRow(qPrintable(QString("B=%1 L=%2 T=%3 D=%4%5%6")
                                 .arg(r.b)
                                 .arg(r.l)
                                 .arg(r.t)
                                 .arg(r.d)
                                 .arg(r.bias ? " bias" : "")
                                 .arg(r.strided ? " strided" : "")))
        << r.b << r.l << r.t << r.d << r.bias << r.strided;
  }
}

}  // namespace

class TestKernelReferences : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() { at::set_num_threads(2); }

  // The benchmarks' call timing (kernels/call_timing.h), by the calls it makes: one warm-up, then
  // `repeats` timed calls (at least one); a warm-up slower than the slow-call limit is the answer
  // alone; a spent budget stops after the first timed call. Limits below zero make every call slow
  // and every budget spent, so no count depends on how fast this machine is.
  void callTimingWarmsUpAndKeepsToItsLimits() {
    int calls = 0;
    const auto count = [&calls] { ++calls; };
    const CallTimingLimits generous{1e12, 1e12};
    QVERIFY(meanCallMs(count, 3, generous) >= 0);
    QCOMPARE(calls, 4);
    calls = 0;
    meanCallMs(count, 0, generous);
    QCOMPARE(calls, 2);
    calls = 0;
    QVERIFY(meanCallMs(count, 5, {-1, 1e12}) >= 0);
    QCOMPARE(calls, 1);
    calls = 0;
    meanCallMs(count, 5, {1e12, -1});
    QCOMPARE(calls, 2);
  }

  void tokenMixMatchesAutograd_data() { addMixRows(); }
  void tokenMixMatchesAutograd() {
    QFETCH(qlonglong, batch);
    QFETCH(qlonglong, length);
    QFETCH(qlonglong, context);
    QFETCH(qlonglong, width);
    QFETCH(bool, withBias);
    QFETCH(bool, stridedX);
    for (const auto dtype : {at::kFloat, at::kDouble}) {
      const double tol = dtype == at::kFloat ? 1e-6 : 1e-12;
      torch::manual_seed(static_cast<uint64_t>(length * 100 + width));
      MixCase c = mixCase(batch, length, context, width, withBias, stridedX, dtype);
      const at::Tensor w_out = at::randn({batch, length, width}, at::TensorOptions().dtype(dtype));
      const MixResult ref = runMix(c, w_out, false);
      const MixResult got = runMix(c, w_out, true);
      QCOMPARE(got.y.sizes(), ref.y.sizes());
      QCOMPARE(got.dw.sizes(), ref.dw.sizes());
      CHECK_CLOSE(got.y, ref.y, tol, "y");
      CHECK_CLOSE(got.dx, ref.dx, tol, "dx");
      CHECK_CLOSE(got.dw, ref.dw, tol, "dW");
      if (withBias) CHECK_CLOSE(got.dbias, ref.dbias, tol, "dbias");
      // Exactly zero above the diagonal and outside the used leading block.
      QCOMPARE(got.dw.triu(1).abs().max().item<double>(), 0.0);
      QCOMPARE(got.dw.narrow(0, length, context - length).abs().sum().item<double>(), 0.0);
      if (withBias) QCOMPARE(got.dbias.narrow(0, length, context - length).abs().sum().item<double>(), 0.0);
    }
  }

  // Row blocks that stop at the diagonal give the dense product (fp64, blocks of 1, 3, 64, dense).
  void referenceBlocksAgreeWithDense() {
    torch::manual_seed(5);
    const auto opts = at::TensorOptions().dtype(at::kDouble);
    const at::Tensor x = at::randn({3, 70, 5}, opts), w = at::randn({70, 70}, opts), bias = at::randn({70}, opts);
    const at::Tensor dy = at::randn({3, 70, 5}, opts);
    const at::Tensor expected = at::matmul(w.tril(), x) + bias.unsqueeze(-1);
    const at::Tensor expected_dx = at::matmul(w.tril().t(), dy);
    const at::Tensor expected_dw = at::einsum("bid,bjd->ij", {dy, x}).tril();
    for (const int64_t rows : {int64_t{1}, int64_t{3}, int64_t{64}, int64_t{70}, int64_t{500}}) {
      CHECK_CLOSE(causalTokenMixForwardReference(x, w, bias, rows), expected, 1e-12,
                  QString("y, blocks of %1").arg(rows));
      const TokenMixGradients g = causalTokenMixBackwardReference(dy, x, w, true, rows);
      CHECK_CLOSE(g.x, expected_dx, 1e-12, QString("dx, blocks of %1").arg(rows));
      CHECK_CLOSE(g.weight, expected_dw, 1e-12, QString("dW, blocks of %1").arg(rows));
      CHECK_CLOSE(g.bias, dy.sum(at::IntArrayRef{0, 2}), 1e-12, QString("dbias, blocks of %1").arg(rows));
      QCOMPARE(g.weight.triu(1).abs().max().item<double>(), 0.0);
    }
  }

  // Central differences of sum(y * w) in fp64 for every element of x, the full weight and the bias.
  void tokenMixFiniteDifferences() {
    torch::manual_seed(13);
    MixCase c = mixCase(2, 4, 5, 3, true, false, at::kDouble);
    const at::Tensor w_out = at::randn({2, 4, 3}, at::TensorOptions().dtype(at::kDouble));
    const MixResult analytic = runMix(c, w_out, true);
    const double eps = 1e-6;
    torch::NoGradGuard no_grad;
    auto loss = [&x = c.x, &weight = c.weight, &bias = c.bias, &w_out] {
      return (causalTokenMix(x, weight, bias) * w_out).sum().item<double>();
    };
    const std::pair<at::Tensor, at::Tensor> inputs[] = {
        {c.x, analytic.dx}, {c.weight, analytic.dw}, {c.bias, analytic.dbias}};
    for (const auto& [input, grad] : inputs) {
      for (int64_t k = 0; k < input.numel(); ++k) {
        at::Tensor element = elementOf(input, k);
        const double v = element.item<double>();
        element.fill_(v + eps);
        const double plus = loss();
        element.fill_(v - eps);
        const double minus = loss();
        element.fill_(v);
        const double numeric = (plus - minus) / (2 * eps);
        const double exact = grad.reshape({-1})[k].item<double>();
        QVERIFY2(std::abs(numeric - exact) <= 1e-6 * (1 + std::abs(exact)),
                 qPrintable(QString("element %1: numeric %2, analytic %3").arg(k).arg(numeric).arg(exact)));
      }
    }
  }

  // maskedTokenMix sends the causal mask to the custom op (one autograd node) and keeps the others
  // on the autograd path.
  void maskedTokenMixDispatch() {
    const at::Tensor x = torch::randn({2, 6, 4}).requires_grad_(true);
    const at::Tensor w = torch::randn({6, 6}).requires_grad_(true);
    const at::Tensor causal = maskedTokenMix(x, w, at::Tensor(), TokenMask::kCausal);
    QVERIFY(causal.grad_fn() != nullptr);
    const std::string node = causal.grad_fn()->name();
    QVERIFY2(node.find("CausalTokenMix") != std::string::npos, node.c_str());
    const at::Tensor reverse = maskedTokenMix(x, w, at::Tensor(), TokenMask::kFutureSkipOne);
    QVERIFY(reverse.grad_fn() != nullptr);
    QVERIFY(reverse.grad_fn()->name().find("CausalTokenMix") == std::string::npos);
    CHECK_CLOSE(reverse, at::matmul(w.triu(2), x), 1e-6, "future-skip-one mix");
    QVERIFY_THROWS_EXCEPTION(std::exception,
                             torch::autograd::grad({causal.sum()}, {w}, {}, true, /*create_graph=*/true));
  }

  // Which path a causal mix takes: the custom op on the CPU in every dtype and under CPU autocast; on a
  // GPU only in fp32 outside autocast (half-precision products go to the tensor-core GEMM).
  void causalPathChoiceByDeviceAndPrecision() {
    QVERIFY(customCausalOpPreferred(torch::randn({2, 4, 3})));
    QVERIFY(customCausalOpPreferred(torch::randn({2, 4, 3}).to(at::kBFloat16)));
    {
      mixerlab::AutocastScope autocast(at::Device(at::kCPU), mixerlab::Precision::Bf16);
      QVERIFY(customCausalOpPreferred(torch::randn({2, 4, 3})));
    }
    SKIP_WITHOUT_GPU();
    const auto gpu = torch::TensorOptions().device(at::kCUDA);
    QVERIFY(customCausalOpPreferred(torch::randn({2, 4, 3}, gpu)));
    QVERIFY(!customCausalOpPreferred(torch::randn({2, 4, 3}, gpu.dtype(at::kBFloat16))));
    QVERIFY(!customCausalOpPreferred(torch::randn({2, 4, 3}, gpu.dtype(at::kHalf))));
    mixerlab::AutocastScope autocast(at::Device(at::kCUDA), mixerlab::Precision::Bf16);
    QVERIFY(!customCausalOpPreferred(torch::randn({2, 4, 3}, gpu)));
  }

  // Under CPU bf16 autocast the custom op gives what the autograd path gives there: a bf16 product
  // with the fp32 bias added (an fp32 result), and fp32 gradients.
  void tokenMixUnderAutocast() {
    torch::manual_seed(3);
    MixCase c = mixCase(2, 33, 40, 8, true, false, at::kFloat);
    const at::Tensor w_out = at::randn({2, 33, 8});
    MixResult ref, got;
    {
      mixerlab::AutocastScope autocast(at::Device(at::kCPU), mixerlab::Precision::Bf16);
      ref = runMix(c, w_out, false);
      got = runMix(c, w_out, true);
    }
    QCOMPARE(got.y.scalar_type(), ref.y.scalar_type());
    QCOMPARE(got.dw.scalar_type(), at::kFloat);
    CHECK_CLOSE(got.y, ref.y, 1e-2, "y under autocast");
    CHECK_CLOSE(got.dx, ref.dx, 2e-2, "dx under autocast");
    CHECK_CLOSE(got.dw, ref.dw, 2e-2, "dW under autocast");
    QCOMPARE(got.dw.triu(1).abs().max().item<double>(), 0.0);
  }

  void residualLayerNormMatchesUnfused_data() {
    QTest::addColumn<qlonglong>("rows");
    QTest::addColumn<qlonglong>("width");
    QTest::addColumn<bool>("sumUsed");
    QTest::newRow("3x2") << 3LL << 2LL << true;
    QTest::newRow("6x7") << 6LL << 7LL << true;
    QTest::newRow("6x7 sum unused") << 6LL << 7LL << false;
    QTest::newRow("300x256") << 300LL << 256LL << true;
  }
  void residualLayerNormMatchesUnfused() {
    QFETCH(qlonglong, rows);
    QFETCH(qlonglong, width);
    QFETCH(bool, sumUsed);
    for (const auto dtype : {at::kFloat, at::kDouble}) {
      const double tol = dtype == at::kFloat ? 1e-6 : 1e-12;
      torch::manual_seed(static_cast<uint64_t>(rows + width));
      const auto opts = at::TensorOptions().dtype(dtype);
      const at::Tensor x = (3 * at::randn({2, rows, width}, opts) + 1).requires_grad_(true);
      const at::Tensor r = at::randn({2, rows, width}, opts).requires_grad_(true);
      const at::Tensor w = (1 + 0.2 * at::randn({width}, opts)).requires_grad_(true);
      const at::Tensor b = (0.2 * at::randn({width}, opts)).requires_grad_(true);
      const at::Tensor w_out = at::randn({2, rows, width}, opts), w_sum = at::randn({2, rows, width}, opts);
      // The reference: at::layer_norm(x + r) in fp64 on the same values (for fp32 rows, closer to
      // the truth than fp32 at::layer_norm, whose rounding rstd amplifies when D = 1).
      auto run = [&](bool fused, at::ScalarType type) {
        std::vector<at::Tensor> in;
        for (const at::Tensor& t : {x, r, w, b}) in.push_back(t.detach().to(type).requires_grad_(true));
        const auto [out, sum] = fused ? residualLayerNorm(in[0], in[1], in[2], in[3], 1e-5)
                                      : residualLayerNormUnfused(in[0], in[1], in[2], in[3], 1e-5);
        at::Tensor loss = (out * w_out.to(type)).sum();
        if (sumUsed) loss = loss + (sum * w_sum.to(type)).sum();
        const auto grads = torch::autograd::grad({loss}, in);
        return std::vector<at::Tensor>{out.detach(), sum.detach(), grads[0], grads[1], grads[2], grads[3]};
      };
      QVERIFY(residualLayerNormSupports(x, r, w, b));
      const auto ref = run(false, at::kDouble), got = run(true, dtype);
      const char* names[] = {"out", "sum", "dx", "dresidual", "dweight", "dbias"};
      for (size_t i = 0; i < ref.size(); ++i) CHECK_CLOSE(got[i], ref[i], tol, names[i]);
    }
  }

  // The token-major mix ([L, B, D]) equals the batch-major autograd path, for every mask kind and
  // a sequence shorter than the context: forward and the gradients of x, W and the bias (fp64).
  void tokenMajorMixMatchesBatchMajor() {
    for (const TokenMask mask : {TokenMask::kCausal, TokenMask::kFutureSkipOne, TokenMask::kNone}) {
      for (const int64_t length : {int64_t{9}, int64_t{12}}) {
        torch::manual_seed(static_cast<uint64_t>(length) + 3 * static_cast<uint64_t>(mask));
        const auto opts = at::TensorOptions().dtype(at::kDouble);
        const at::Tensor x = at::randn({3, length, 5}, opts), target = at::randn({3, length, 5}, opts);
        const at::Tensor w0 = at::randn({12, 12}, opts), b0 = at::randn({12}, opts);
        auto run = [&](bool token_major) {
          const at::Tensor xi = x.clone().requires_grad_(true), w = w0.clone().requires_grad_(true);
          const at::Tensor b = b0.clone().requires_grad_(true);
          const at::Tensor y = token_major ? tokenMajorMix(xi.transpose(0, 1).contiguous(), w, b, mask).transpose(0, 1)
                                           : maskedTokenMixAutograd(xi, w, b, mask);
          ((y - target).pow(2) * at::arange(1, 1 + y.numel(), opts).view(y.sizes())).sum().backward();
          return std::vector<at::Tensor>{y.detach().contiguous(), xi.grad(), w.grad(), b.grad()};
        };
        const auto got = run(true), ref = run(false);
        const char* names[] = {"y", "dx", "dW", "dbias"};
        for (size_t i = 0; i < ref.size(); ++i) {
          CHECK_CLOSE(got[i], ref[i], 1e-12, QString("%1 (L=%2 mask %3)").arg(names[i]).arg(length).arg(int(mask)));
        }
      }
    }
  }

  // MIXERLAB_SCAN_FORWARD's values (read on the GPU, where a mistyped one is refused by name).
  void scanForwardKernelNames() {
    QCOMPARE(parseScanForwardKernel("thread").value(), ScanForwardKernel::kThreadPerChannel);
    QCOMPARE(parseScanForwardKernel("lanes").value(), ScanForwardKernel::kLanePerState);
    QVERIFY(!parseScanForwardKernel("lane").has_value());
    QVERIFY(!parseScanForwardKernel("").has_value());
  }

  // Mixed precision off the GPU: an fp32 x with a bf16 residual takes the unfused ops, and still
  // gives the output and the residual's gradient in bf16, the sum in fp32.
  void residualLayerNormMixedPrecisionOnCpu() {
    torch::manual_seed(21);
    const at::Tensor x = at::randn({2, 5, 16}).requires_grad_(true);
    const at::Tensor r = at::randn({2, 5, 16}).to(at::kBFloat16).requires_grad_(true);
    const at::Tensor w = (1 + 0.1 * at::randn({16})).requires_grad_(true),
                     b = (0.1 * at::randn({16})).requires_grad_(true);
    QVERIFY(!residualLayerNormSupports(x, r, w, b));
    const auto [out, sum] = residualLayerNorm(x, r, w, b, 1e-5);
    QCOMPARE(out.scalar_type(), at::kBFloat16);
    QCOMPARE(sum.scalar_type(), at::kFloat);
    const at::Tensor expected = at::layer_norm(x.detach() + r.detach().to(at::kFloat), {16}, w.detach(), b.detach());
    CHECK_CLOSE(sum, x.detach() + r.detach().to(at::kFloat), 0.0, "sum");
    CHECK_CLOSE(out, expected.to(at::kBFloat16), 0.0, "out");
    (out.to(at::kFloat).sum() + sum.sum()).backward();
    QCOMPARE(r.grad().scalar_type(), at::kBFloat16);
    QCOMPARE(x.grad().scalar_type(), at::kFloat);
  }

  // Central differences in fp64 for every input element of the fused op.
  void residualLayerNormFiniteDifferences() {
    torch::manual_seed(17);
    const auto opts = at::TensorOptions().dtype(at::kDouble);
    std::vector<at::Tensor> in = {at::randn({3, 5}, opts), at::randn({3, 5}, opts), 1 + 0.3 * at::randn({5}, opts),
                                  0.3 * at::randn({5}, opts)};
    for (auto& t : in) t.requires_grad_(true);
    const at::Tensor w_out = at::randn({3, 5}, opts), w_sum = at::randn({3, 5}, opts);
    auto loss = [&] {
      const auto [out, sum] = residualLayerNorm(in[0], in[1], in[2], in[3], 1e-5);
      return (out * w_out).sum() + (sum * w_sum).sum();
    };
    const auto analytic = torch::autograd::grad({loss()}, in);
    torch::NoGradGuard no_grad;
    const double eps = 1e-6;
    for (size_t i = 0; i < in.size(); ++i) {
      at::Tensor flat = in[i].view({-1});
      for (int64_t k = 0; k < flat.numel(); ++k) {
        const double v = flat[k].item<double>();
        flat[k] = v + eps;
        const double plus = loss().item<double>();
        flat[k] = v - eps;
        const double minus = loss().item<double>();
        flat[k] = v;
        const double numeric = (plus - minus) / (2 * eps);
        const double exact = analytic[i].view({-1})[k].item<double>();
        QVERIFY2(
            std::abs(numeric - exact) <= 1e-6 * (1 + std::abs(exact)),
            qPrintable(QString("input %1 element %2: numeric %3, analytic %4").arg(i).arg(k).arg(numeric).arg(exact)));
      }
    }
  }

  // --- GPU: the CUDA paths against the CPU reference ----------------------------------------------
  void gpuRows_data() {
    QTest::addColumn<QString>("dtype");
    QTest::addColumn<double>("tolerance");
    QTest::newRow("fp32") << "fp32" << 1e-4;
    QTest::newRow("bf16") << "bf16" << 2e-2;
    QTest::newRow("fp16") << "fp16" << 2e-2;
  }

  void tokenMixCudaMatchesCpu_data() { gpuRows_data(); }
  void tokenMixCudaMatchesCpu() {
    QFETCH(QString, dtype);
    QFETCH(double, tolerance);
    SKIP_WITHOUT_GPU();
    const at::ScalarType type = scalarType(dtype);
    for (const auto& [length, context] : {std::pair<int64_t, int64_t>{1, 1}, {77, 77}, {200, 256}, {513, 513}}) {
      torch::manual_seed(static_cast<uint64_t>(length));
      MixCase gpu = mixCase(3, length, context, 40, true, true, type, at::Device(at::kCUDA));
      const at::Tensor w_out = at::randn({3, length, 40}, at::TensorOptions().dtype(type).device(at::kCUDA));
      const MixResult got = runMix(gpu, w_out, true);
      // The CPU reference in fp64 on the same (rounded) values.
      MixCase cpu{gpu.x.detach().to(at::kCPU, at::kDouble).requires_grad_(true),
                  gpu.weight.detach().to(at::kCPU, at::kDouble).requires_grad_(true),
                  gpu.bias.detach().to(at::kCPU, at::kDouble).requires_grad_(true)};
      const MixResult ref = runMix(cpu, w_out.to(at::kCPU, at::kDouble), false);
      const QString at_l = QString(" (L=%1 T=%2 %3)").arg(length).arg(context).arg(dtype);
      CHECK_CLOSE(got.y, ref.y, tolerance, "y" + at_l);
      CHECK_CLOSE(got.dx, ref.dx, tolerance, "dx" + at_l);
      CHECK_CLOSE(got.dw, ref.dw, tolerance, "dW" + at_l);
      CHECK_CLOSE(got.dbias, ref.dbias, tolerance, "dbias" + at_l);
      QCOMPARE(got.dw.triu(1).abs().max().item<double>(), 0.0);
    }
  }

  void residualLayerNormCudaMatchesCpu_data() { gpuRows_data(); }
  void residualLayerNormCudaMatchesCpu() {
    QFETCH(QString, dtype);
    QFETCH(double, tolerance);
    SKIP_WITHOUT_GPU();
    const at::ScalarType type = scalarType(dtype);
    const auto opts = at::TensorOptions().dtype(type).device(at::kCUDA);
    // D = 2500: wider than the register kernels take (2048), so the loop kernels run.
    for (const int64_t width : {int64_t{1}, int64_t{7}, int64_t{256}, int64_t{1000}, int64_t{2500}}) {
      torch::manual_seed(static_cast<uint64_t>(width));
      std::vector<at::Tensor> gpu = {2 * at::randn({4, 33, width}, opts) + 1, at::randn({4, 33, width}, opts),
                                     1 + 0.2 * at::randn({width}, opts), 0.2 * at::randn({width}, opts)};
      std::vector<at::Tensor> cpu;
      for (auto& t : gpu) {
        t.requires_grad_(true);
        cpu.push_back(t.detach().to(at::kCPU, at::kDouble).requires_grad_(true));
      }
      const at::Tensor w_out = at::randn({4, 33, width}, opts), w_sum = at::randn({4, 33, width}, opts);
      auto run = [&](std::vector<at::Tensor>& in, const at::Tensor& wo, const at::Tensor& ws) {
        const auto [out, sum] = residualLayerNorm(in[0], in[1], in[2], in[3], 1e-5);
        const auto grads = torch::autograd::grad({(out * wo).sum() + (sum * ws).sum()}, in);
        return std::vector<at::Tensor>{out.detach(), sum.detach(), grads[0], grads[2], grads[3]};
      };
      const auto got = run(gpu, w_out, w_sum);
      const auto ref = run(cpu, w_out.to(at::kCPU, at::kDouble), w_sum.to(at::kCPU, at::kDouble));
      const char* names[] = {"out", "sum", "dx", "dweight", "dbias"};
      for (size_t i = 0; i < ref.size(); ++i) {
        CHECK_CLOSE(got[i], ref[i], tolerance, QString("%1 (D=%2 %3)").arg(names[i]).arg(width).arg(dtype));
      }
    }
  }

  // An fp32 x (and sum, weight, bias) with a half-precision residual, as the fused mixer stack
  // runs under autocast: out and the residual's gradient come out in the residual's dtype.
  void residualLayerNormMixedCudaMatchesCpu_data() {
    QTest::addColumn<QString>("dtype");
    QTest::newRow("bf16 residual") << "bf16";
    QTest::newRow("fp16 residual") << "fp16";
  }
  void residualLayerNormMixedCudaMatchesCpu() {
    QFETCH(QString, dtype);
    SKIP_WITHOUT_GPU();
    const at::ScalarType half = scalarType(dtype);
    const auto f32 = at::TensorOptions().dtype(at::kFloat).device(at::kCUDA);
    for (const int64_t width : {int64_t{7}, int64_t{256}, int64_t{1024}, int64_t{2500}}) {
      torch::manual_seed(static_cast<uint64_t>(width) + 5);
      std::vector<at::Tensor> gpu = {2 * at::randn({4, 33, width}, f32) + 1, at::randn({4, 33, width}, f32).to(half),
                                     1 + 0.2 * at::randn({width}, f32), 0.2 * at::randn({width}, f32)};
      QVERIFY(residualLayerNormSupports(gpu[0], gpu[1], gpu[2], gpu[3]));
      std::vector<at::Tensor> cpu;
      for (auto& t : gpu) {
        t.requires_grad_(true);
        cpu.push_back(t.detach().to(at::kCPU, at::kDouble).requires_grad_(true));
      }
      const at::Tensor w_out = at::randn({4, 33, width}, f32), w_sum = at::randn({4, 33, width}, f32);
      auto run = [&](std::vector<at::Tensor>& in, const at::Tensor& wo, const at::Tensor& ws, bool device) {
        const auto [out, sum] = residualLayerNorm(in[0], in[1], in[2], in[3], 1e-5);
        if (device) {
          if (out.scalar_type() != half || sum.scalar_type() != at::kFloat) return std::vector<at::Tensor>{};
        }
        const auto grads = torch::autograd::grad({(out.to(wo.scalar_type()) * wo).sum() + (sum * ws).sum()}, in);
        if (device && grads[1].scalar_type() != half) return std::vector<at::Tensor>{};
        return std::vector<at::Tensor>{out.detach(), sum.detach(), grads[0], grads[1], grads[2], grads[3]};
      };
      const auto got = run(gpu, w_out, w_sum, true);
      QVERIFY2(!got.empty(), "out or the residual's gradient not in the residual's dtype, or the sum not fp32");
      const auto ref = run(cpu, w_out.to(at::kCPU, at::kDouble), w_sum.to(at::kCPU, at::kDouble), false);
      const char* names[] = {"out", "sum", "dx", "dresidual", "dweight", "dbias"};
      for (size_t i = 0; i < ref.size(); ++i) {
        CHECK_CLOSE(got[i], ref[i], 2e-2, QString("%1 (D=%2 %3)").arg(names[i]).arg(width).arg(dtype));
      }
    }
  }

  void selectiveScanCudaMatchesCpu_data() { gpuRows_data(); }
  void selectiveScanCudaMatchesCpu() {
    QFETCH(QString, dtype);
    QFETCH(double, tolerance);
    SKIP_WITHOUT_GPU();
    const at::ScalarType type = scalarType(dtype);
    const auto opts = at::TensorOptions().dtype(type).device(at::kCUDA);
    // L = 37 crosses chunk borders of the backward's recompute; E = 70 leaves a partial warp.
    for (const auto& [length, state] : {std::pair<int64_t, int64_t>{1, 1}, {37, 16}, {64, 5}, {200, 64}}) {
      torch::manual_seed(static_cast<uint64_t>(length * 7 + state));
      const int64_t batch = 2, channels = 70;
      std::vector<at::Tensor> gpu = {
          at::randn({batch, length, channels}, opts),   at::softplus(at::randn({batch, length, channels}, opts) - 1),
          -at::exp(at::randn({channels, state}, opts)), at::randn({batch, length, state}, opts),
          at::randn({batch, length, state}, opts),      at::randn({channels}, opts)};
      std::vector<at::Tensor> cpu;
      for (auto& t : gpu) {
        t = t.detach().requires_grad_(true);
        cpu.push_back(t.detach().to(at::kCPU, at::kDouble).requires_grad_(true));
      }
      const at::Tensor w = at::randn({batch, length, channels}, opts);
      auto run = [&](std::vector<at::Tensor>& in, const at::Tensor& wy, ScanMode mode) {
        const at::Tensor y = selectiveScan(in[0], in[1], in[2], in[3], in[4], in[5], mode);
        auto grads = torch::autograd::grad({(y * wy).sum()}, in, {}, c10::nullopt, false, /*allow_unused=*/true);
        grads.insert(grads.begin(), y.detach());
        return grads;
      };
      const auto ref = run(cpu, w.to(at::kCPU, at::kDouble), ScanMode::Sequential);
      // Both forward kernels: one thread per channel, one lane per state (N <= 32; else the first).
      for (const ScanForwardKernel kernel : {ScanForwardKernel::kThreadPerChannel, ScanForwardKernel::kLanePerState}) {
        ComputePaths paths = activeComputePaths();
        paths.scan_forward = kernel;
        const auto got = [&] {
          const ScopedComputePaths scope(paths);
          return run(gpu, w, ScanMode::Fused);
        }();
        const char* names[] = {"y", "du", "ddelta", "dA", "dB", "dC", "dD"};
        const char* kernel_name = kernel == ScanForwardKernel::kLanePerState ? "lanes" : "thread";
        for (size_t i = 0; i < ref.size(); ++i) {
          // L = 1: nothing depends on A in the reference (no gradient); the kernel gives zeros.
          if (!ref[i].defined()) continue;
          CHECK_CLOSE(got[i], ref[i], tolerance,
                      QString("%1 (L=%2 N=%3 %4, %5 forward)")
                          .arg(names[i])
                          .arg(length)
                          .arg(state)
                          .arg(dtype)
                          .arg(kernel_name));
        }
      }
    }
  }

 private:
  static at::ScalarType scalarType(const QString& name) {
    return name == "bf16" ? at::kBFloat16 : name == "fp16" ? at::kHalf : at::kFloat;
  }
};

QTEST_GUILESS_MAIN(TestKernelReferences)
#include "test_kernel_references.moc"
