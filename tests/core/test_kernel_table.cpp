// The kernel table's one test: every op x device x dtype the table lists (kernels/kernel_table.h).
// Each row makes the op's inputs, runs the custom kernel forward and backward (of sum(output * w)
// over every output), and compares every output and every input's gradient with the op's ATen
// reference run in fp64 on the CPU on the same (rounded) values, within the table's relative
// tolerance. Every fp64 CPU row also checks the kernel's gradient of every input element against
// central differences. CUDA rows run where LibTorch sees a GPU and are skipped otherwise. A new
// kernel gets all of this from its table entry alone.
#include <torch/torch.h>
#include <QtTest/QtTest>

#include <filesystem>

#include "kernels/kernel_table.h"
#include "tests/test_support.h"

using namespace mixerlab::kernels;

namespace {

// The shape of every row: small enough for central differences in fp64, with a batch, a length
// that is not a power of two and more than one feature and state.
const KernelShape kRowShape{2, 5, 3, 4};

// max |a - b| / max |b|: one relative error for the whole tensor.
double relativeError(const at::Tensor& a, const at::Tensor& b) {
  const at::Tensor ad = a.to(at::kCPU, at::kDouble), bd = b.to(at::kCPU, at::kDouble);
  const double scale = std::max(bd.abs().max().item<double>(), 1e-30);
  return (ad - bd).abs().max().item<double>() / scale;
}

struct ForwardBackward {
  std::vector<at::Tensor> outputs, grads;  // grads[i]: of input i (undefined when unused)
};

// `op` on `inputs` (made leaves that need gradients), backward of sum(output_k * weights[k]).
ForwardBackward runOp(const KernelFunction& op, std::vector<at::Tensor>& inputs,
                      const std::vector<at::Tensor>& weights) {
  for (at::Tensor& t : inputs) t = t.detach().requires_grad_(true);
  const std::vector<at::Tensor> outputs = op(inputs);
  at::Tensor loss = (outputs.at(0).to(weights.at(0).scalar_type()) * weights.at(0)).sum();
  for (size_t k = 1; k < outputs.size(); ++k)
    loss = loss + (outputs[k].to(weights[k].scalar_type()) * weights[k]).sum();
  ForwardBackward r;
  r.grads = torch::autograd::grad({loss}, inputs, {}, c10::nullopt, false, /*allow_unused=*/true);
  for (const at::Tensor& out : outputs) r.outputs.push_back(out.detach());
  return r;
}

}  // namespace

class TestKernelTable : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  // Every entry is complete: names, inputs and outputs as listed, a tolerance for both devices.
  void entriesAreComplete() {
    QVERIFY(!kernelTable().empty());
    for (const KernelEntry& e : kernelTable()) {
      QVERIFY2(!e.description.empty() && e.make_inputs && e.kernel && e.reference, e.name.c_str());
      QVERIFY2(!e.cpu.empty() && !e.cuda.empty(), e.name.c_str());
      QVERIFY2(&findKernel(e.name) == &e, e.name.c_str());
      torch::manual_seed(1);
      const auto inputs = e.make_inputs(kRowShape, at::TensorOptions().dtype(at::kFloat));
      QCOMPARE(inputs.size(), e.input_names.size());
      QCOMPARE(e.kernel(inputs).size(), e.output_names.size());
      QCOMPARE(e.reference(inputs).size(), e.output_names.size());
      if (!e.cuda_source.empty()) {
        QVERIFY2(std::filesystem::exists(mixerlab::testing::sourceDir() / e.cuda_source), e.cuda_source.c_str());
      }
    }
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, findKernel("no_such_kernel"));
  }

  void kernelMatchesReference_data() {
    QTest::addColumn<QString>("op");
    QTest::addColumn<bool>("cuda");
    QTest::addColumn<int>("dtype");
    QTest::addColumn<double>("tolerance");
    for (const KernelEntry& e : kernelTable()) {
      for (const bool cuda : {false, true}) {
        for (const KernelTolerance& t : cuda ? e.cuda : e.cpu) {
          const std::string row = e.name + (cuda ? " cuda " : " cpu ") + dtypeName(t.dtype);
          QTest::newRow(row.c_str()) << QString::fromStdString(e.name) << cuda << static_cast<int>(t.dtype)
                                     << t.relative;
        }
      }
    }
  }

  void kernelMatchesReference() {
    QFETCH(QString, op);
    QFETCH(bool, cuda);
    QFETCH(int, dtype);
    QFETCH(double, tolerance);
    if (cuda && !torch::cuda::is_available()) QSKIP("no CUDA device (or a CPU-only LibTorch)");
    const KernelEntry& e = findKernel(op.toStdString());
    const auto type = static_cast<at::ScalarType>(dtype);
    const auto opts = at::TensorOptions().dtype(type).device(cuda ? at::kCUDA : at::kCPU);
    torch::manual_seed(7);
    std::vector<at::Tensor> inputs = e.make_inputs(kRowShape, opts);
    std::vector<at::Tensor> weights;
    for (const at::Tensor& out : e.kernel(inputs)) weights.push_back(at::randn(out.sizes(), opts));
    const ForwardBackward got = runOp(e.kernel, inputs, weights);
    // The reference in fp64 on the CPU, on the very values the kernel saw.
    std::vector<at::Tensor> ref_inputs, ref_weights;
    for (const at::Tensor& t : inputs) ref_inputs.push_back(t.detach().to(at::kCPU, at::kDouble));
    for (const at::Tensor& w : weights) ref_weights.push_back(w.to(at::kCPU, at::kDouble));
    const ForwardBackward ref = runOp(e.reference, ref_inputs, ref_weights);
    for (size_t k = 0; k < ref.outputs.size(); ++k) {
      QCOMPARE(got.outputs[k].device().is_cuda(), cuda);
      const double err = relativeError(got.outputs[k], ref.outputs[k]);
      QVERIFY2(err <= tolerance, qPrintable(QString("output %1: relative error %2 (tolerance %3)")
                                                .arg(QString::fromStdString(e.output_names[k]))
                                                .arg(err)
                                                .arg(tolerance)));
    }
    for (size_t i = 0; i < ref.grads.size(); ++i) {
      if (!ref.grads[i].defined()) continue;  // the reference does not depend on this input here
      QVERIFY2(got.grads[i].defined(), e.input_names[i].c_str());
      const double err = relativeError(got.grads[i], ref.grads[i]);
      QVERIFY2(err <= tolerance, qPrintable(QString("gradient of %1: relative error %2 (tolerance %3)")
                                                .arg(QString::fromStdString(e.input_names[i]))
                                                .arg(err)
                                                .arg(tolerance)));
    }
  }

  // The kernel's own gradient against central differences of its own forward, in fp64 on the CPU,
  // for every element of every input: a backward that agrees with a wrong reference still fails.
  void kernelGradientMatchesFiniteDifferences_data() {
    QTest::addColumn<QString>("op");
    for (const KernelEntry& e : kernelTable()) QTest::newRow(e.name.c_str()) << QString::fromStdString(e.name);
  }

  void kernelGradientMatchesFiniteDifferences() {
    QFETCH(QString, op);
    const KernelEntry& e = findKernel(op.toStdString());
    const auto opts = at::TensorOptions().dtype(at::kDouble);
    torch::manual_seed(11);
    std::vector<at::Tensor> inputs = e.make_inputs(kRowShape, opts);
    std::vector<at::Tensor> weights;
    for (const at::Tensor& out : e.kernel(inputs)) weights.push_back(at::randn(out.sizes(), opts));
    const ForwardBackward analytic = runOp(e.kernel, inputs, weights);
    torch::NoGradGuard no_grad;
    auto loss = [&] {
      const std::vector<at::Tensor> outputs = e.kernel(inputs);
      double total = 0;
      for (size_t k = 0; k < outputs.size(); ++k) total += (outputs[k] * weights[k]).sum().item<double>();
      return total;
    };
    const double step = 1e-6;
    for (size_t i = 0; i < inputs.size(); ++i) {
      at::Tensor flat = inputs[i].view({-1});
      const at::Tensor exact_grad =
          analytic.grads[i].defined() ? analytic.grads[i].reshape({-1}) : at::zeros_like(flat);
      for (int64_t k = 0; k < flat.numel(); ++k) {
        const double v = flat[k].item<double>();
        flat[k] = v + step;
        const double plus = loss();
        flat[k] = v - step;
        const double minus = loss();
        flat[k] = v;
        const double numeric = (plus - minus) / (2 * step);
        const double exact = exact_grad[k].item<double>();
        QVERIFY2(std::abs(numeric - exact) <= 1e-6 * (1 + std::abs(exact)),
                 qPrintable(QString("%1[%2]: numeric %3, analytic %4")
                                .arg(QString::fromStdString(e.input_names[i]))
                                .arg(k)
                                .arg(numeric)
                                .arg(exact)));
      }
    }
  }
};

QTEST_GUILESS_MAIN(TestKernelTable)
#include "test_kernel_table.moc"
