// Numeric fixtures for the two transformer baselines (docs/architectures.md): a Llama and a GPT forward on fixed
// weights and tokens, compared with logits this file computes from the published formulas with
// plain tensor ops (Hugging Face LlamaForCausalLM and OpenAIGPTLMHeadModel), never through the
// model's modules or RotaryTables. The model's weights are set by tensor name and the reference
// reads the same name -> tensor map, so a swapped name (gate_proj / up_proj), a wrong RoPE, a
// changed default rope_theta or norm eps, a missing norm or a transposed Conv1D moves the model's
// logits but not the reference's. Models use their default config values; the run is in float64.
#include <torch/torch.h>
#include <QtTest/QtTest>

#include <cmath>
#include <functional>

#include "core/models/model_registry.h"
#include "core/models/safetensors.h"
#include "tests/tiny_model_config.h"

using namespace mixerlab;

namespace {
using TensorMap = std::map<std::string, at::Tensor>;
const auto kDouble = torch::TensorOptions().dtype(torch::kFloat64);
// Max |logit difference| in float64. Llama logits are O(1); GPT's are ~1e-2 (its head is the small
// token embedding), so this is still a relative 1e-7 there.
constexpr double kTolerance = 1e-9;
constexpr int64_t kLayers = 2, kHeads = 2;

ModelConfig baselineConfig(const std::string& arch) {
  // rope_theta, norm_eps, ff_mult and options stay at their defaults
  ModelConfig c = testing::tinyModelConfig(arch, 11, 16, kLayers, 8);
  c.n_heads = kHeads;
  return c;
}

at::Tensor tokens() { return torch::tensor({3, 1, 4, 1, 5, 9, 2, 6, 5, 10}, torch::kLong).reshape({2, 5}); }

uint64_t nameSeed(const std::string& name) {  // FNV-1a: the values depend on the name only
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char ch : name) h = (h ^ ch) * 1099511628211ULL;
  return h;
}

bool contains(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

// A value for every parameter of `model`, from a generator seeded by the tensor's name: norm gains
// 1 + 0.1 N(0,1), norm shifts and biases 0.1 N(0,1), matrices N(0,1) / sqrt(fan_in); embeddings and
// GPT's attention biases `small` N(0,1), so the first norm's input is small and its eps matters.
TensorMap fixtureWeights(LanguageModel& model, double small) {
  TensorMap weights;
  for (const auto& item : model.named_parameters()) {
    const std::string& name = item.key();
    const auto shape = item.value().sizes();
    auto values = torch::randn(shape, at::detail::createCPUGenerator(nameSeed(name)), kDouble);
    const bool norm = contains(name, "norm") || contains(name, "ln_");
    const bool bias = name.size() > 5 && name.compare(name.size() - 5, 5, ".bias") == 0;
    if (norm && !bias) {
      values = 1.0 + 0.1 * values;
    } else if (contains(name, "embed") || (bias && contains(name, "attn."))) {
      values = small * values;
    } else if (bias) {
      values = 0.1 * values;
    } else {
      const bool conv1d = contains(name, ".c_");  // GPT Conv1D weights are [in, out]
      values = values / std::sqrt(static_cast<double>(conv1d ? shape[0] : shape[1]));
    }
    weights[name] = values;
  }
  return weights;
}

void loadFixture(LanguageModel& model, const TensorMap& weights) {
  SafetensorsFile file;
  file.tensors = weights;
  loadIntoModule(model, file, "fixture");
}

at::Tensor named(const TensorMap& w, const std::string& name) {
  auto it = w.find(name);
  if (it == w.end()) throw std::runtime_error("the fixture has no tensor named " + name);
  return it->second;
}

// ---- Formulas shared by both references.

// torch.nn.Linear without bias: x W^T, W [out, in].
at::Tensor dense(const at::Tensor& x, const at::Tensor& w) { return torch::matmul(x, w.transpose(0, 1)); }

// Softmax attention over [B, L, H, hd] inputs: scores q.k / sqrt(hd), key j > query i masked out.
at::Tensor causalAttention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v) {
  const int64_t batch = q.size(0), length = q.size(1), head_dim = q.size(3);
  auto qh = q.permute({0, 2, 1, 3}), kh = k.permute({0, 2, 1, 3}), vh = v.permute({0, 2, 1, 3});
  auto scores = torch::matmul(qh, kh.transpose(-2, -1)) / std::sqrt(static_cast<double>(head_dim));
  auto future = torch::ones({length, length}, torch::kBool).triu(1);
  auto probs = torch::softmax(scores.masked_fill(future, -INFINITY), -1);
  return torch::matmul(probs, vh).permute({0, 2, 1, 3}).reshape({batch, length, -1});
}

at::Tensor splitHeads(const at::Tensor& x) { return x.reshape({x.size(0), x.size(1), kHeads, -1}); }

// ---- Llama (HF LlamaForCausalLM).

at::Tensor rmsNorm(const at::Tensor& x, const at::Tensor& gain, double eps) {
  return gain * (x / torch::sqrt(x.pow(2).mean(-1, true) + eps));
}

at::Tensor sigmoidLinearUnit(const at::Tensor& x) { return x / (1.0 + torch::exp(-x)); }

// Rotate-half RoPE on [B, L, H, hd]: at position p, dims i and i + hd/2 rotate together by the angle
// p * theta^(-2i/hd).
at::Tensor rope(const at::Tensor& x, double theta) {
  const int64_t length = x.size(1), head_dim = x.size(3), half = head_dim / 2;
  auto out = x.clone();
  for (int64_t p = 0; p < length; ++p) {
    for (int64_t i = 0; i < half; ++i) {
      const double angle = static_cast<double>(p) * std::pow(theta, -2.0 * static_cast<double>(i) / head_dim);
      const auto a = x.select(1, p).select(-1, i), b = x.select(1, p).select(-1, i + half);
      out.select(1, p).select(-1, i).copy_(a * std::cos(angle) - b * std::sin(angle));
      out.select(1, p).select(-1, i + half).copy_(b * std::cos(angle) + a * std::sin(angle));
    }
  }
  return out;
}

at::Tensor llamaReference(const TensorMap& w, const at::Tensor& ids, double theta, double eps) {
  auto x = named(w, "model.embed_tokens.weight").index({ids});
  for (int64_t layer = 0; layer < kLayers; ++layer) {
    const std::string p = "model.layers." + std::to_string(layer) + ".";
    auto n = rmsNorm(x, named(w, p + "input_layernorm.weight"), eps);
    auto q = rope(splitHeads(dense(n, named(w, p + "self_attn.q_proj.weight"))), theta);
    auto k = rope(splitHeads(dense(n, named(w, p + "self_attn.k_proj.weight"))), theta);
    auto v = splitHeads(dense(n, named(w, p + "self_attn.v_proj.weight")));
    x = x + dense(causalAttention(q, k, v), named(w, p + "self_attn.o_proj.weight"));
    auto m = rmsNorm(x, named(w, p + "post_attention_layernorm.weight"), eps);
    auto gated = sigmoidLinearUnit(dense(m, named(w, p + "mlp.gate_proj.weight"))) *
                 dense(m, named(w, p + "mlp.up_proj.weight"));
    x = x + dense(gated, named(w, p + "mlp.down_proj.weight"));
  }
  return dense(rmsNorm(x, named(w, "model.norm.weight"), eps), named(w, "lm_head.weight"));  // untied head
}

// ---- GPT (HF OpenAIGPTLMHeadModel).

at::Tensor layerNorm(const at::Tensor& x, const at::Tensor& gain, const at::Tensor& shift, double eps) {
  auto centred = x - x.mean(-1, true);
  return centred / torch::sqrt(centred.pow(2).mean(-1, true) + eps) * gain + shift;
}

// HF Conv1D: x W + b with W stored [in, out].
at::Tensor conv1d(const TensorMap& w, const std::string& prefix, const at::Tensor& x) {
  return torch::matmul(x, named(w, prefix + ".weight")) + named(w, prefix + ".bias");
}

at::Tensor geluTanh(const at::Tensor& x) {  // HF "gelu_new"
  return 0.5 * x * (1.0 + torch::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x.pow(3))));
}

at::Tensor gptReference(const TensorMap& w, const at::Tensor& ids, double eps) {
  const int64_t length = ids.size(1);
  const auto embed = named(w, "transformer.tokens_embed.weight");
  const int64_t width = embed.size(1);
  auto x = embed.index({ids}) + named(w, "transformer.positions_embed.weight").narrow(0, 0, length);
  for (int64_t layer = 0; layer < kLayers; ++layer) {
    const std::string p = "transformer.h." + std::to_string(layer) + ".";
    auto qkv = conv1d(w, p + "attn.c_attn", x);  // fused, split in the order query, key, value
    auto q = qkv.narrow(-1, 0, width), k = qkv.narrow(-1, width, width), v = qkv.narrow(-1, 2 * width, width);
    auto a = conv1d(w, p + "attn.c_proj", causalAttention(splitHeads(q), splitHeads(k), splitHeads(v)));
    auto n = layerNorm(x + a, named(w, p + "ln_1.weight"), named(w, p + "ln_1.bias"), eps);  // post-LN
    auto m = conv1d(w, p + "mlp.c_proj", geluTanh(conv1d(w, p + "mlp.c_fc", n)));
    x = layerNorm(n + m, named(w, p + "ln_2.weight"), named(w, p + "ln_2.bias"), eps);
  }
  return torch::matmul(x, embed.transpose(0, 1));  // head tied to the token embedding, no final norm
}

double maxDifference(const at::Tensor& a, const at::Tensor& b) { return (a - b).abs().max().item<double>(); }

// A fixture weight map for `arch` with the model's weights set from it; the model is in eval mode.
std::pair<LanguageModelPtr, TensorMap> fixtureModel(const std::string& arch) {
  torch::manual_seed(0);
  auto model = buildModel(baselineConfig(arch));
  model->to(torch::kFloat64);
  TensorMap weights = fixtureWeights(*model, 0.003);
  loadFixture(*model, weights);
  model->eval();
  return {model, weights};
}

// Compares `arch`'s fixture model's logits on tokens() with reference(fixture weights, tokens()).
// Empty when they agree within kTolerance; otherwise what differs (or the reference's own error).
QString referenceMismatch(const std::string& arch,
                          const std::function<at::Tensor(const TensorMap&, const at::Tensor&)>& reference) {
  auto [model, weights] = fixtureModel(arch);
  torch::NoGradGuard no_grad;
  at::Tensor expected;
  try {
    expected = reference(weights, tokens());
  } catch (const std::exception& e) {
    return e.what();
  }
  const auto logits = model->forward(tokens());
  if (logits.sizes() != expected.sizes()) {
    return QString::fromStdString(arch + " logits have shape " + c10::str(logits.sizes()) + ", the reference " +
                                  c10::str(expected.sizes()));
  }
  const double diff = maxDifference(logits, expected);
  if (!(diff < kTolerance)) {
    return QString("%1 logits differ from the reference by %2").arg(QString::fromStdString(arch)).arg(diff);
  }
  return QString();
}

TensorMap swapped(TensorMap w, const std::string& a, const std::string& b) {
  std::swap(w.at(a), w.at(b));
  return w;
}
}  // namespace

class TestBaselineFixtures : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() { at::set_num_threads(2); }

  // Llama: RMSNorm (eps 1e-6), rotate-half RoPE (theta 10000), causal attention, SwiGLU
  // down(sigmoidLinearUnit(gate(x)) * up(x)), final RMSNorm, untied head.
  void llamaLogitsMatchReference() {
    QCOMPARE(referenceMismatch("llama", [](const TensorMap& w,
                                           const at::Tensor& ids) { return llamaReference(w, ids, 10000.0, 1e-6); }),
             QString());
  }

  // GPT: learned positions, fused c_attn split q,k,v, post-LN (eps 1e-5), GELU-tanh MLP, Conv1D
  // x W + b, head tied to the token embedding; eval mode, so no dropout.
  void gptLogitsMatchReference() {
    QCOMPARE(
        referenceMismatch("gpt", [](const TensorMap& w, const at::Tensor& ids) { return gptReference(w, ids, 1e-5); }),
        QString());
  }

  // The fixtures can see the bugs they are meant to catch: each of these changes moves the
  // reference logits far beyond the tolerance.
  void fixturesSeeThetaEpsAndSwaps() {
    torch::NoGradGuard no_grad;
    const auto ids = tokens();
    auto llama = fixtureModel("llama").second;
    const auto base = llamaReference(llama, ids, 10000.0, 1e-6);
    const std::string mlp = "model.layers.0.mlp.";
    const std::map<QString, at::Tensor> llama_changes = {
        {"rope_theta 500000", llamaReference(llama, ids, 500000.0, 1e-6)},
        {"RMSNorm eps 1e-5", llamaReference(llama, ids, 10000.0, 1e-5)},
        {"gate_proj / up_proj swapped",
         llamaReference(swapped(llama, mlp + "gate_proj.weight", mlp + "up_proj.weight"), ids, 10000.0, 1e-6)},
    };
    for (const auto& [what, logits] : llama_changes) {
      const double diff = maxDifference(logits, base);
      QVERIFY2(diff > 1e5 * kTolerance, qPrintable(QString("llama, %1: logits move by only %2").arg(what).arg(diff)));
    }

    auto gpt = fixtureModel("gpt").second;
    const auto gpt_base = gptReference(gpt, ids, 1e-5);
    auto transposed = gpt;
    transposed.at("transformer.h.0.attn.c_proj.weight") = gpt.at("transformer.h.0.attn.c_proj.weight").t().clone();
    const std::map<QString, at::Tensor> gpt_changes = {
        {"LayerNorm eps 1e-6", gptReference(gpt, ids, 1e-6)},
        {"ln_1 / ln_2 swapped",
         gptReference(swapped(gpt, "transformer.h.0.ln_1.weight", "transformer.h.0.ln_2.weight"), ids, 1e-5)},
        {"attn.c_proj transposed", gptReference(transposed, ids, 1e-5)},
    };
    for (const auto& [what, logits] : gpt_changes) {
      const double diff = maxDifference(logits, gpt_base);
      QVERIFY2(diff > 1e5 * kTolerance, qPrintable(QString("gpt, %1: logits move by only %2").arg(what).arg(diff)));
    }
  }
};

QTEST_APPLESS_MAIN(TestBaselineFixtures)
#include "test_baseline_fixtures.moc"
