// Rotary position embedding (RotaryTables, used by llama, transfixer and the Llama-layer
// families): checked against hand-written cos/sin values, and for the properties that make it
// RoPE: position 0 is the identity, it is a rotation (norms kept), and q.k after rotation depends
// only on the offset between the two positions. A flipped or missing sign in rotate-half, or the
// wrong pairing of dimensions, fails here before it shows up as a slightly worse loss.
#include <torch/torch.h>
#include <QtTest/QtTest>

#include "core/models/transformers/llama_transformer.h"

using namespace mixerlab;

namespace {
const auto kDouble = torch::TensorOptions().dtype(torch::kFloat64);

// head_dim 4, theta 10000: dims 0 and 2 rotate by p * 10000^0 = p rad, dims 1 and 3 by
// p * 10000^(-2/4) = p / 100 rad (Hugging Face rotate-half pairing: dim i with i + head_dim/2).
// cos and sin of those angles at positions 0..3, written out.
const double kCosFast[4] = {1.0, 0.5403023058681398, -0.4161468365471424, -0.9899924966004454};
const double kSinFast[4] = {0.0, 0.8414709848078965, 0.9092974268256817, 0.1411200080598672};
const double kCosSlow[4] = {1.0, 0.9999500004166653, 0.9998000066665778, 0.9995500337489875};
const double kSinSlow[4] = {0.0, 0.009999833334166664, 0.01999866669333308, 0.02999550020249566};

// [1, 1, L, hd] with `row` at every position.
at::Tensor repeatedRow(const at::Tensor& row, int64_t length) {
  return row.reshape({1, 1, 1, -1}).expand({1, 1, length, row.size(0)}).contiguous();
}
}  // namespace

class TestRotary : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() { at::set_num_threads(2); }

  void matchesHandWrittenCosSin() {
    // Two heads with different vectors, the same vector at every position of a head.
    const double rows[2][4] = {{1.0, 2.0, 3.0, 4.0}, {-0.5, 0.25, 2.0, -1.0}};
    auto x = torch::empty({1, 2, 4, 4}, kDouble);
    for (int h = 0; h < 2; ++h) {
      for (int p = 0; p < 4; ++p) {
        for (int d = 0; d < 4; ++d) x[0][h][p][d] = rows[h][d];
      }
    }
    RotaryTables rotary(4, 10000.0);
    const auto out = rotary.apply(x);
    for (int h = 0; h < 2; ++h) {
      const double* r = rows[h];
      for (int p = 0; p < 4; ++p) {
        const double expected[4] = {
            r[0] * kCosFast[p] - r[2] * kSinFast[p],  // x_i cos - x_{i+2} sin
            r[1] * kCosSlow[p] - r[3] * kSinSlow[p],
            r[2] * kCosFast[p] + r[0] * kSinFast[p],  // x_{i+2} cos + x_i sin
            r[3] * kCosSlow[p] + r[1] * kSinSlow[p],
        };
        for (int d = 0; d < 4; ++d) {
          const double got = out[0][h][p][d].item<double>();
          QVERIFY2(std::abs(got - expected[d]) < 1e-12,
                   qPrintable(QString("head %1 position %2 dim %3: got %4, expected %5")
                                  .arg(h)
                                  .arg(p)
                                  .arg(d)
                                  .arg(got, 0, 'g', 17)
                                  .arg(expected[d], 0, 'g', 17)));
        }
      }
    }
  }

  void positionZeroIsIdentity() {
    torch::manual_seed(5);
    auto x = torch::randn({2, 3, 5, 8}, kDouble);
    RotaryTables rotary(8, 10000.0);
    const auto out = rotary.apply(x);
    QVERIFY(torch::equal(out.select(2, 0), x.select(2, 0)));
    QVERIFY(!torch::allclose(out.select(2, 1), x.select(2, 1)));
  }

  void preservesNorms() {
    torch::manual_seed(6);
    auto x = torch::randn({2, 3, 7, 8}, kDouble);
    RotaryTables rotary(8, 10000.0);
    const auto out = rotary.apply(x);
    QVERIFY(torch::allclose(out.norm(2, -1), x.norm(2, -1), 1e-12, 1e-12));
  }

  // <R_i q, R_j k> is a function of i - j alone: equal for every pair with the same offset, and
  // different across offsets (so the check is not satisfied by a constant).
  void dotProductDependsOnlyOnOffset() {
    torch::manual_seed(7);
    const int64_t length = 8;
    const auto q = torch::randn({8}, kDouble), k = torch::randn({8}, kDouble);
    RotaryTables rotary(8, 10000.0);
    const auto rq = rotary.apply(repeatedRow(q, length))[0][0];  // row i = q at position i
    const auto rk = rotary.apply(repeatedRow(k, length))[0][0];
    auto dot = [&](int64_t i, int64_t j) { return torch::dot(rq[i], rk[j]).item<double>(); };
    std::vector<double> by_offset;
    for (int64_t offset = -3; offset <= 3; ++offset) {
      const int64_t first = std::max<int64_t>(0, -offset);
      const double reference = dot(first + offset, first);
      for (int64_t j = first; j + offset < length && j < length; ++j) {
        QVERIFY2(std::abs(dot(j + offset, j) - reference) < 1e-12,
                 qPrintable(QString("q at %1, k at %2: %3, but q at %4, k at %5: %6")
                                .arg(j + offset)
                                .arg(j)
                                .arg(dot(j + offset, j), 0, 'g', 17)
                                .arg(first + offset)
                                .arg(first)
                                .arg(reference, 0, 'g', 17)));
      }
      by_offset.push_back(reference);
    }
    for (size_t a = 1; a < by_offset.size(); ++a) QVERIFY(std::abs(by_offset[a] - by_offset[a - 1]) > 1e-6);
  }

  // The tables are cached: a longer input, a shorter one and another dtype all get the same rows.
  void cachedTablesServeEveryLengthAndDtype() {
    torch::manual_seed(8);
    auto x = torch::randn({1, 2, 6, 4}, kDouble);
    RotaryTables rotary(4, 10000.0);
    const auto short_first = rotary.apply(x.narrow(2, 0, 2));
    const auto full = rotary.apply(x);
    const auto short_again = rotary.apply(x.narrow(2, 0, 3));
    QVERIFY(torch::allclose(full.narrow(2, 0, 2), short_first, 0, 1e-15));
    QVERIFY(torch::allclose(full.narrow(2, 0, 3), short_again, 0, 1e-15));
    const auto as_float = rotary.apply(x.to(torch::kFloat32));
    QCOMPARE(as_float.scalar_type(), torch::kFloat32);
    QVERIFY(torch::allclose(as_float.to(torch::kFloat64), full, 1e-6, 1e-6));
    const double expected = x[0][0][1][0].item<double>() * kCosFast[1] - x[0][0][1][2].item<double>() * kSinFast[1];
    QVERIFY(std::abs(full[0][0][1][0].item<double>() - expected) < 1e-12);
  }
};

QTEST_APPLESS_MAIN(TestRotary)
#include "test_rotary.moc"
