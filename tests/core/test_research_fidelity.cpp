// Research-fidelity tests of the models: the transformer autoencoder's embedding and
// head keep PyTorch's default init as in the research; the Llama one-step completion model has no
// final norm and plain init; softmax_compat with multi_token is refused at config time; and
// `mixerlab import` turns an exported checkpoint (research tensor names, fp32/fp16/bf16, with the
// unused tensors the research saved) back into a run whose weights are bit for bit the original;
// the paper-era multi-head mixer (Table S5 "2 heads") equals a reference written here from the
// research's description; in-place masking compat also holds for the Transfixer and bidirectional mixer.
// Crafted shapes, NaN weights, an unknown arch and hostile --out
// names given to `import` (and crafted weights to `score`) end in a clear message, never a stack.
#include <torch/torch.h>
#include <QtTest/QtTest>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "core/analysis/checkpoint_eval.h"
#include "core/analysis/research_import.h"
#include "core/config/project_config.h"
#include "core/data/tokenizer.h"
#include "core/data/tokenizer_sample.h"
#include "core/models/composite/transfixer.h"
#include "core/models/mixers/bidirectional_mixer.h"
#include "core/models/model_registry.h"
#include "core/models/safetensors.h"
#include "core/reproduce/research_claims.h"
#include "core/runs/run_info.h"
#include "core/runs/run_status.h"
#include "core/train/checkpoint.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "tests/cli_process.h"
#include "tests/test_support.h"
#include "tests/tiny_model_config.h"

using namespace mixerlab;
namespace fs = std::filesystem;

namespace {

constexpr int64_t kVocab = 512;  // the demo tokenizer's size

ModelConfig smallConfig(const std::string& arch) {
  ModelConfig c = testing::tinyModelConfig(arch, kVocab, 16, 2, 8);
  c.n_heads = 2;
  return c;
}

double stddev(const at::Tensor& t) { return t.to(torch::kFloat64).std().item<double>(); }

}  // namespace

class TestResearchFidelity : public QObject {
  Q_OBJECT
  fs::path scratch_, tokenizer_;

 private Q_SLOTS:
  void initTestCase() {
    at::set_num_threads(2);
    scratch_ = testing::makeScratchDir("research-fidelity");
    TokenizerSettings settings;
    settings.vocab_size = static_cast<int>(kVocab);
    tokenizer_ = ensureTokenizer(testing::demoTrainCorpus(), CorpusFormat::Auto, settings, scratch_ / "cache");
  }

  void transformerAutoencoderKeepsDefaultInit() {
    ModelConfig c = smallConfig("transformer_autoencoder");
    c.d_model = 64;
    torch::manual_seed(3);
    auto model = buildModel(c);
    const auto tensors = model->exportTensors();
    // nn.Embedding: N(0, 1).
    const double embedding_std = stddev(tensors.at("wte.weight"));
    QVERIFY2(embedding_std > 0.9 && embedding_std < 1.1, qPrintable(QString::number(embedding_std)));
    // nn.Linear(D, V, bias=False): U(-1/sqrt(D), 1/sqrt(D)), std 1/sqrt(3D).
    const auto head = tensors.at("lm_head.weight");
    const double bound = 1.0 / std::sqrt(64.0);
    QVERIFY(head.abs().max().item<double>() <= bound);
    QVERIFY(std::abs(stddev(head) - bound / std::sqrt(3.0)) < 0.1 * bound);
    // The Llama layers keep Hugging Face's N(0, 0.02).
    const double layer_std = stddev(tensors.at("encoder.model.model.layers.0.self_attn.q_proj.weight"));
    QVERIFY2(std::abs(layer_std - 0.02) < 0.004, qPrintable(QString::number(layer_std)));
  }

  void llamaCompletionHasNoFinalNormAndPlainInit() {
    ModelConfig c = smallConfig("llama");
    c.d_model = 64;
    c.objective = ModelObjective::kOneStepCompletion;
    torch::manual_seed(4);
    auto model = buildModel(c);
    for (const auto& item : model->named_parameters()) QVERIFY2(item.key() != "model.norm.weight", "final norm");
    QCOMPARE(estimateCost(c, 1).parameters, model->parameterCount());
    const auto tensors = model->exportTensors();
    QVERIFY(!tensors.count("model.norm.weight"));
    QVERIFY(std::abs(stddev(tensors.at("wte.weight")) - 1.0) < 0.1);
    QVERIFY(tensors.at("lm_head.weight").abs().max().item<double>() <= 1.0 / std::sqrt(64.0));
    // Research names: the layers of the two stacks, each a wrapped LlamaForCausalLM.
    QVERIFY(tensors.count("encoder.model.model.layers.0.mlp.gate_proj.weight"));
    QVERIFY(tensors.count("decoder.model.model.layers.0.mlp.gate_proj.weight"));
    QVERIFY(!tensors.count("encoder.model.model.layers.1.mlp.gate_proj.weight"));
    // The output is the head applied to the last layer's state, without any norm.
    torch::NoGradGuard no_grad;
    model->eval();
    const auto ids = torch::randint(kVocab, {1, 8}, torch::kLong);
    const auto expected = torch::matmul(model->hiddenStates(ids), tensors.at("lm_head.weight").t());
    QVERIFY(torch::allclose(model->forward(ids), expected, 1e-5, 1e-6));
    // The plain Llama keeps its final norm.
    c.objective = ModelObjective::kNextToken;
    QVERIFY(buildModel(c)->exportTensors().count("model.norm.weight"));
  }

  void softmaxCompatWithMultiTokenIsRefused() {
    ModelConfig c = smallConfig("masked_mixer");
    c.objective = ModelObjective::kMultiToken;
    c.mtp_tokens = 2;
    c.options = {{"mixing_weights", "softmax_compat"}};
    try {
      buildModel(c);
      QFAIL("softmax_compat with multi_token was accepted");
    } catch (const MixerLabError& e) {
      const QString message = QString::fromStdString(e.what());
      QVERIFY2(message.contains("softmax_compat") && message.contains("multi_token"), qPrintable(message));
    }
    c.options = {{"mixing_weights", "softmax"}};
    buildModel(c);  // the clean softmax works with multi_token
  }

  // Spec 2: in the paper-era code every "head" applies the last head's masked conv to the
  // unprojected (seq-normed) input; the H identical outputs are concatenated and mapped by
  // out_proj = Linear(H*D -> D). Written here from that description with plain ops on the named
  // tensors: x = x + out_proj(cat_H(tril(W_last) LN_seq(x) + b)); x = x + FF(LN_patch(x)).
  void multiHeadCompatEqualsThePaperEraComputation() {
    ModelConfig c = smallConfig("masked_mixer");
    c.options = {{"mixing", "multi_head"}, {"mixing_heads", 2}, {"multi_head_compat", true}};
    torch::manual_seed(21);
    auto model = buildModel(c);
    model->eval();
    const auto t = model->exportTensors();
    const int64_t D = c.d_model, T = c.context_length;
    QCOMPARE(t.at("mixerblocks.0.mixerhead.out_proj.weight").sizes(), (at::IntArrayRef{D, 2 * D}));
    QCOMPARE(estimateCost(c, 1).parameters, model->parameterCount());
    const auto ids = torch::randint(kVocab, {2, T}, torch::kLong);
    auto x = torch::embedding(t.at("wte.weight"), ids);
    auto ln = [&](const at::Tensor& h, const std::string& name) {
      return torch::layer_norm(h, {D}, t.at(name + ".weight"), t.at(name + ".bias"), 1e-5);
    };
    for (int64_t n = 0; n < c.n_layers; ++n) {
      const std::string b = "mixerblocks." + std::to_string(n);
      const auto w = t.at(b + ".mixerhead.convs.1.weight").select(2, 0).tril();  // the LAST head's conv
      const auto conv =
          torch::matmul(w, ln(x, b + ".seq_layernorm")) + t.at(b + ".mixerhead.convs.1.bias").view({T, 1});
      x = x + torch::linear(torch::cat({conv, conv}, -1), t.at(b + ".mixerhead.out_proj.weight"),
                            t.at(b + ".mixerhead.out_proj.bias"));
      auto ff = torch::gelu(
          torch::linear(ln(x, b + ".patch_layernorm"), t.at(b + ".patch_ff.0.weight"), t.at(b + ".patch_ff.0.bias")));
      x = x + torch::linear(ff, t.at(b + ".patch_ff.2.weight"), t.at(b + ".patch_ff.2.bias"));
    }
    const auto expected = torch::linear(x, t.at("lm_head.weight"));
    torch::NoGradGuard no_grad;
    QVERIFY(torch::allclose(model->forward(ids), expected, 1e-4, 1e-5));
    // The intended design differs (projections used, one conv per head).
    c.options["multi_head_compat"] = false;
    torch::manual_seed(21);
    QVERIFY(buildModel(c)->exportTensors().at("mixerblocks.0.mixerhead.out_proj.weight").size(1) == D);
  }

  // mask_mode inplace_compat (docs/architectures.md, docs/fidelity.md) for the families beyond the masked mixer: masked
  // entries of the stored token-conv weights receive gradients (they count in clipping); graph mode gives them none.
  void inplaceCompatForTransfixerAndBidirectionalMixer_data() {
    QTest::addColumn<QString>("arch");
    QTest::newRow("transfixer") << "transfixer";
    QTest::newRow("bidirectional_mixer") << "bidirectional_mixer";
  }

  void inplaceCompatForTransfixerAndBidirectionalMixer() {
    QFETCH(QString, arch);
    for (const char* mode : {"graph", "inplace_compat"}) {
      ModelConfig c = smallConfig(arch.toStdString());
      c.options = {{"mask_mode", mode}};
      torch::manual_seed(31);
      auto model = buildModel(c);
      const auto ids = torch::randint(kVocab, {2, c.context_length}, torch::kLong);
      model->loss(model->forward(ids), ids).backward();
      double masked_grad = 0, kept_grad = 0;
      for (const auto& item : model->named_parameters()) {
        const std::string& name = item.key();
        const bool forward_conv =
            name.find(".conv.weight") != std::string::npos || name.find(".convf.weight") != std::string::npos;
        if (!forward_conv || !item.value().grad().defined()) continue;
        const auto g = item.value().grad().select(2, 0);
        masked_grad += g.triu(1).abs().sum().item<double>();
        kept_grad += g.tril().abs().sum().item<double>();
      }
      QVERIFY(kept_grad > 0);
      if (std::string(mode) == "graph") {
        QCOMPARE(masked_grad, 0.0);
      } else {
        QVERIFY2(masked_grad > 0, "in-place compat: masked entries must receive gradients");
      }
    }
  }

  // The paper presets parse (their corpus need not be downloaded) and give the research's parameter
  // counts (docs/architectures.md); every preset run's config is valid for its family.
  void paperPresetsMatchTheSpecCounts() {
    const ProjectConfig paper =
        loadProject(testing::sourceDir() / "projects/paper/project.json", CorpusFiles::MayBeMissing);
    const std::map<std::string, int64_t> spec = {
        {"s3-mixer-d256", 8411136},       {"s3-mixer-d512", 23109632},         {"s3-mixer-d1024", 77672448},
        {"s3-mixer-d2048-b8", 287461376}, {"s3-mixer-d1024-k4", 83963904},     {"s2-expanded-d512", 29409280},
        {"s2-expanded-d1024", 83972096},  {"s1-llama-d128-h32", 3147904},      {"s1-llama-d256-h32", 10490112},
        {"s1-llama-d512-h32", 37757440},  {"s1-llama-d1024-h32-b8", 142623744}};
    for (const auto& [name, parameters] : spec) {
      QCOMPARE(estimateCost(paper.run(name).model, 1).parameters, parameters);
    }
    for (const auto& run : paper.runs) {
      QCOMPARE(run.model.context_length, int64_t{512});
      QCOMPARE(run.model.vocab_size, int64_t{4096});
      QCOMPARE(run.train.warmup_steps, int64_t{500});
      QCOMPARE(run.train.padding_side, std::string("left"));
    }
  }

  // The presets carry the research scripts' settings (docs/fidelity.md cites the file of
  // each): the LR decays over the epochs each script configured (never the one-epoch schedule that
  // ended a 12-hour run after one epoch), the mixers' 5e-4 for every Llama and GPT run (the paper:
  // the transformers used the mixers' hyperparameters; Table S6's eta = 0.02 column at 2e-3), the
  // first 2,000,000 stories, and fp16 AMP on GPUs.
  void paperPresetsCarryTheResearchSettings() {
    const ProjectConfig paper =
        loadProject(testing::sourceDir() / "projects/paper/project.json", CorpusFiles::MayBeMissing);
    QCOMPARE(paper.corpus.max_examples, int64_t{2000000});
    const auto expected_epochs = [](const std::string& name) {
      if (name.rfind("s1-", 0) == 0 || name.rfind("s4-", 0) == 0) return 3.0;  // pc/llama_trainer.py
      if (name.rfind("s2-", 0) == 0 || name.rfind("s3-", 0) == 0) return 5.0;  // pc/mixer_trainer.py
      if (name == "s5-mixer-1head" || name == "s5-mixer-k4") return 2.5;       // server/mixer_multiconv.py
      if (name.rfind("s5-mixer-2heads", 0) == 0) return 2.9;                   // server/multiheaded_mixer.py
      if (name.rfind("s6-", 0) == 0) return 20.0;                              // server/llama_trainer.py
      if (name.rfind("s7-", 0) == 0) return 20.0;    // the V100 Llama script's, S7's own is not recorded
      if (name.rfind("blog2-", 0) == 0) return 7.0;  // the autoencoder scripts
      return -1.0;
    };
    const auto on_v100 = [](const std::string& name) {
      for (const char* prefix : {"s5-", "s6-", "s7-", "blog2-"}) {
        if (name.rfind(prefix, 0) == 0) return true;
      }
      return false;
    };
    QCOMPARE(paper.runs.size(), size_t{27});
    for (const auto& run : paper.runs) {
      QVERIFY2(run.train.schedule_epochs == expected_epochs(run.name), run.name.c_str());
      QCOMPARE(run.train.precision, std::string("fp16_on_cuda"));
      const double lr = run.name == "s6-llama-d512-h4-b16-eta002" ? 2e-3
                        : run.name.rfind("blog2-", 0) == 0        ? 1e-4
                                                                  : 5e-4;
      QCOMPARE(run.train.learning_rate, lr);
      QCOMPARE(run.train.max_wall_s, on_v100(run.name) ? 8100.0 : 43200.0);
      // The RTX 3060 runs (torch 2.0) got Hugging Face's eager attention; the V100 ones SDPA or FlashAttention.
      if (familyReadsModelKey(run.model.arch, "attention")) {
        const bool rtx3060 = run.name.rfind("s1-", 0) == 0 || run.name.rfind("s4-", 0) == 0;
        QVERIFY2(run.model.attention == (rtx3060 ? AttentionImpl::kEager : AttentionImpl::kSdpa), run.name.c_str());
      }
    }
    QCOMPARE(paper.run("blog2-mixer-autoencoder-d512").model.options.at("ff_dropout").get<double>(), 0.05);
  }

  // projects/fineweb: blog II's Fineweb-edu runs with the research's settings. Parameter counts by
  // hand at V=8000, T=512: the mixer D=1024 N=16 has 16 blocks of 8,660,480 (two LayerNorms 4,096,
  // the token mix 512x512 + 512, the feed-forward 8,393,728) plus two 8000x1024 matrices; the Llama
  // D=512 N=16 has 16 layers of 4,195,328 (attention 4 x 512^2, SwiGLU 3 x 512 x 2048, two norms)
  // plus two 8000x512 matrices and the final norm.
  void finewebPresetsCarryBlogTwoSettings() {
    const ProjectConfig fineweb =
        loadProject(testing::sourceDir() / "projects/fineweb/project.json", CorpusFiles::MayBeMissing);
    QCOMPARE(estimateCost(fineweb.run("clm-mixer-d1024-n16").model, 1).parameters, int64_t{154951680});
    QCOMPARE(estimateCost(fineweb.run("clm-llama-d512-n16-h4").model, 1).parameters, int64_t{75317760});
    QCOMPARE(fineweb.corpus.eval_documents, int64_t{50000});
    QVERIFY(fineweb.corpus.format == CorpusFormat::JsonLines);
    QCOMPARE(fineweb.tokenizer.vocab_size, int64_t{8000});
    const std::map<std::string, double> lr{
        {"clm-mixer-d1024-n16", 5e-4},          {"clm-llama-d512-n16-h4", 2e-4},
        {"mtp-mixer-d1024-n16", 5e-4},          {"mtp-llama-d512-n16-h4", 2e-4},
        {"completion-mixer-d1024", 2e-4},       {"completion-llama-d512-h4", 1e-4},
        {"bidirectional-mixer-d512-n24", 5e-4}, {"bidirectional-transformer-d512", 1e-4}};
    QCOMPARE(fineweb.runs.size(), lr.size());
    for (const auto& run : fineweb.runs) {
      QVERIFY2(lr.count(run.name), run.name.c_str());
      QCOMPARE(run.train.learning_rate, lr.at(run.name));
      QCOMPARE(run.model.context_length, int64_t{512});
      QCOMPARE(run.model.vocab_size, int64_t{8000});
      QCOMPARE(run.train.warmup_steps, int64_t{500});
      QCOMPARE(run.train.padding_side, std::string("left"));
      QCOMPARE(run.train.batch_mode, std::string("padded"));
      QCOMPARE(run.train.precision, std::string("fp16_on_cuda"));
      // 32 rows per GPU on 4 V100 (multi-token prediction: 16), as the global batch.
      QCOMPARE(run.train.batch_size, run.model.objective == ModelObjective::kMultiToken ? int64_t{64} : int64_t{128});
      const bool by_epochs = run.name == "completion-mixer-d1024" || run.name == "bidirectional-transformer-d512";
      QCOMPARE(run.train.max_steps, by_epochs ? int64_t{0} : int64_t{200000});
      if (by_epochs) QVERIFY(run.train.horizonFromEpochs() && run.train.max_wall_s == 86400.0);
    }
    QCOMPARE(fineweb.run("bidirectional-mixer-d512-n24").model.n_layers, int64_t{24});
    QCOMPARE(fineweb.run("bidirectional-transformer-d512").train.schedule_epochs, 7.0);
    QCOMPARE(fineweb.run("completion-mixer-d1024").train.schedule_epochs, 3.0);
    QCOMPARE(fineweb.run("mtp-mixer-d1024-n16").model.mtp_tokens, int64_t{2});
  }

  // projects/paper/reported_numbers.json: every row names a preset that exists (or none), every
  // preset has the paper's train and eval loss beside it, and a few values are checked against the
  // research's tables by hand (S3 D=1024 eval 1.86, S1 D=256 eval 2.02, S6 GPT train 1.82).
  void reportedNumbersNameThePresets() {
    const ProjectConfig paper =
        loadProject(testing::sourceDir() / "projects/paper/project.json", CorpusFiles::MayBeMissing);
    const ProjectConfig fineweb =
        loadProject(testing::sourceDir() / "projects/fineweb/project.json", CorpusFiles::MayBeMissing);
    const auto reported =
        nlohmann::json::parse(readFile(testing::sourceDir() / "projects/paper/reported_numbers.json"));
    std::map<std::string, std::set<std::string>> metrics_of_preset;
    std::map<std::string, double> value;
    for (const auto& n : reported.at("numbers")) {
      if (n.at("preset").is_null()) continue;
      const std::string preset = n.at("preset").get<std::string>();
      const std::string project = n.value("project", "paper");
      QVERIFY2(project == "paper" || project == "fineweb", project.c_str());
      const auto& runs = (project == "paper" ? paper : fineweb).runs;
      QVERIFY2(std::any_of(runs.begin(), runs.end(), [&](const RunConfig& r) { return r.name == preset; }),
               (project + "/" + preset).c_str());
      if (project != "paper") {
        value[n.at("table").get<std::string>() + "/" + preset + "/" + n.at("metric").get<std::string>()] =
            n.at("value").get<double>();
        continue;
      }
      metrics_of_preset[preset].insert(n.at("metric").get<std::string>());
      value[n.at("table").get<std::string>() + "/" + preset + "/" + n.at("metric").get<std::string>()] =
          n.at("value").get<double>();
    }
    for (const auto& run : paper.runs) {
      QVERIFY2(metrics_of_preset[run.name].count("train_loss") && metrics_of_preset[run.name].count("eval_loss"),
               run.name.c_str());
    }
    QCOMPARE(value["S3/s3-mixer-d1024/eval_loss"], 1.86);
    QCOMPARE(value["S1/s1-llama-d256-h32/eval_loss"], 2.02);
    QCOMPARE(value["S6/s6-gpt-d512-b32/train_loss"], 1.82);
    QCOMPARE(value["S7/s7-transfixer-d512-h4/eval_loss"], 1.59);
    QCOMPARE(value["blog II autoencoders/blog2-transformer-autoencoder-d512/eval_loss"], 5.23);
    QCOMPARE(value["blog II Fineweb CLM/clm-mixer-d1024-n16/eval_loss"], 1.63);
    QCOMPARE(value["blog II Fineweb CLM/clm-llama-d512-n16-h4/eval_loss"], 1.58);
    // One entry per claim of the catalogue, in its order, each figure it names present in numbers.
    QCOMPARE(reported.at("claims").size(), researchClaims().size());
    for (size_t i = 0; i < researchClaims().size(); ++i) {
      const auto& c = reported.at("claims")[i];
      QCOMPARE(c.at("id").get<std::string>(), researchClaims()[i].id);
      QVERIFY(!c.at("paper").get<std::string>().empty() && !c.at("source").get<std::string>().empty());
      for (const auto& v : c.at("values")) {
        const bool found =
            std::any_of(reported.at("numbers").begin(), reported.at("numbers").end(), [&](const auto& n) {
              return n.at("table") == v.at("table") && n.at("row") == v.at("row") && n.at("metric") == v.at("metric");
            });
        QVERIFY2(found, v.dump().c_str());
      }
    }
  }

  void importOfExportIsExact_data() {
    QTest::addColumn<QString>("arch");
    QTest::addColumn<QString>("objective");
    QTest::addColumn<QString>("dtype");
    for (const auto& arch : architectures()) {
      QTest::newRow(arch.name.c_str()) << QString::fromStdString(arch.name) << "next_token"
                                       << "float32";
    }
    QTest::newRow("masked_mixer completion") << "masked_mixer"
                                             << "one_step_completion"
                                             << "float32";
    QTest::newRow("llama completion") << "llama"
                                      << "one_step_completion"
                                      << "float32";
    QTest::newRow("llama fp16") << "llama"
                                << "next_token"
                                << "float16";
    QTest::newRow("masked_mixer bf16") << "masked_mixer"
                                       << "next_token"
                                       << "bfloat16";
  }

  void importOfExportIsExact() {
    QFETCH(QString, arch);
    QFETCH(QString, objective);
    QFETCH(QString, dtype);
    ModelConfig c = smallConfig(arch.toStdString());
    c.objective = parseModelObjective(objective.toStdString());
    torch::manual_seed(11);
    auto original = buildModel(c);
    auto exported = original->exportTensors();
    const auto type = dtype == "float16" ? torch::kFloat16 : dtype == "bfloat16" ? torch::kBFloat16 : torch::kFloat32;
    for (auto& [name, tensor] : exported) tensor = tensor.to(type);
    const fs::path dir = testing::makeScratchDir("import-" + arch.toStdString());
    saveSafetensors(dir / "research.safetensors", exported);
    testing::writeText(dir / "config.json", c.toJson().dump());

    ResearchImportRequest request{dir / "research.safetensors", dir / "config.json", tokenizer_, dir / "run", {}};
    const ResearchImportResult result = importResearchCheckpoint(request);
    QCOMPARE(result.tensors_loaded, static_cast<int64_t>(exported.size()));
    QCOMPARE(readRunStatus(result.run_dir)->state, RunState::Finished);
    QCOMPARE(readRunInfo(result.run_dir).run.model.arch, c.arch);

    auto imported = loadModelFromCheckpoint(result.checkpoint);
    const auto again = imported->exportTensors();
    QCOMPARE(again.size(), exported.size());
    for (const auto& [name, tensor] : exported) {
      QVERIFY2(again.count(name), name.c_str());
      QVERIFY2(torch::equal(again.at(name), tensor.to(torch::kFloat32)), name.c_str());
    }
  }

  // Research checkpoints of models built around a LlamaForCausalLM carry its unused embedding,
  // norm and head; import skips them. A wrong shape is named by its research name with both shapes.
  void importSkipsUnusedWrappedTensorsAndNamesMismatches() {
    ModelConfig c = smallConfig("transformer_autoencoder");
    torch::manual_seed(12);
    auto exported = buildModel(c)->exportTensors();
    for (const char* stack : {"encoder", "decoder"}) {
      const std::string s = stack;
      exported[s + ".model.model.embed_tokens.weight"] = torch::zeros({kVocab, 16});
      exported[s + ".model.model.norm.weight"] = torch::ones({16});
      exported[s + ".model.lm_head.weight"] = torch::zeros({kVocab, 16});
    }
    const fs::path dir = testing::makeScratchDir("import-wrapped");
    saveSafetensors(dir / "research.safetensors", exported);
    testing::writeText(dir / "config.json", nlohmann::json{{"model", c.toJson()}}.dump());
    const auto result =
        importResearchCheckpoint({dir / "research.safetensors", dir / "config.json", tokenizer_, dir / "run", {}});
    QCOMPARE(result.tensors_skipped, int64_t{6});

    exported["encoder.model.model.layers.1.mlp.up_proj.weight"] = torch::zeros({64, 8});
    saveSafetensors(dir / "bad.safetensors", exported);
    try {
      importResearchCheckpoint({dir / "bad.safetensors", dir / "config.json", tokenizer_, dir / "run2", {}});
      QFAIL("a wrong shape was accepted");
    } catch (const MixerLabError& e) {
      const QString message = QString::fromStdString(e.what());
      QVERIFY2(message.contains("encoder.model.model.layers.1.mlp.up_proj.weight") && message.contains("[64, 8]") &&
                   message.contains("[64, 16]"),
               qPrintable(message));
    }
  }

  // An imported run evaluates with the checkpoint's own tokenizer (the checkpoint's copy of the file
  // the project's tokenizer.file names, byte for byte), never with one trained on the eval corpus.
  void importedRunEvaluatesWithItsOwnTokenizer() {
    const fs::path dir = testing::makeScratchDir("import-eval");
    ModelConfig c = smallConfig("masked_mixer");
    c.context_length = 32;
    torch::manual_seed(13);
    saveSafetensors(dir / "m.safetensors", buildModel(c)->exportTensors());
    testing::writeText(dir / "config.json", c.toJson().dump());
    const auto result = importResearchCheckpoint(
        {dir / "m.safetensors", dir / "config.json", tokenizer_, dir / "run", testing::demoTrainCorpus()});
    std::string log;
    const CheckpointEval eval =
        evaluateCheckpoint(result.run_dir, 2, [&log](const std::string& line) { log += line + "\n"; });
    QVERIFY2(std::isfinite(eval.eval_loss) && eval.eval_loss > 0, qPrintable(QString::fromStdString(log)));
    QVERIFY2(
        QString::fromStdString(log).contains("tokenizer (from tokenizer.file): " +
                                             QString::fromStdString((result.checkpoint / "tokenizer.model").string())),
        qPrintable(QString::fromStdString(log)));
    QCOMPARE(readFile(result.run_dir / "tokenizer.model"), readFile(tokenizer_));
    QCOMPARE(readFile(result.checkpoint / "tokenizer.model"), readFile(tokenizer_));
  }

  void importErrorsNameTheFile() {
    const fs::path dir = testing::makeScratchDir("import-errors");
    ModelConfig c = smallConfig("masked_mixer");
    saveSafetensors(dir / "m.safetensors", buildModel(c)->exportTensors());
    testing::writeText(dir / "config.json", R"({"arch": "masked_mixer", "d_model": 16, "n_layers": 3,)"
                                            R"( "context_length": 8, "vocab_size": 512})");
    try {
      importResearchCheckpoint({dir / "m.safetensors", dir / "config.json", tokenizer_, dir / "run", {}});
      QFAIL("a checkpoint with fewer layers than the config was accepted");
    } catch (const MixerLabError& e) {
      QVERIFY2(QString(e.what()).contains("mixerblocks.2"), e.what());
    }
    testing::writeText(dir / "config.json", R"({"d_model": 16})");
    try {
      importResearchCheckpoint({dir / "m.safetensors", dir / "config.json", tokenizer_, dir / "run3", {}});
      QFAIL("a config without arch was accepted");
    } catch (const MixerLabError& e) {
      QVERIFY2(QString(e.what()).contains("config.json"), e.what());
    }
  }

  // Crafted shapes given to `import` or `score` printed a LibTorch stack trace
  // (19 "frame #" lines). Through the real CLI: exit 1, the file and tensor named, no frame,
  // nothing written.
  void craftedShapesGiveAClearErrorThroughTheCli_data() {
    QTest::addColumn<QString>("shape");
    QTest::newRow("[-1,64]") << "[-1, 64]";
    QTest::newRow("[2^40,2^40]") << "[1099511627776, 1099511627776]";
  }
  void craftedShapesGiveAClearErrorThroughTheCli() {
    QFETCH(QString, shape);
    const fs::path dir = testing::makeScratchDir("import-crafted");
    const std::string header =
        R"({"wte.weight": {"dtype": "F32", "shape": )" + shape.toStdString() + R"(, "data_offsets": [0, 0]}})";
    std::string bytes(8, '\0');
    for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((header.size() >> (8 * i)) & 0xff);
    testing::writeText(dir / "crafted.safetensors", bytes + header);
    const ModelConfig c = smallConfig("masked_mixer");
    testing::writeText(dir / "config.json", c.toJson().dump());
    const auto path = [](const fs::path& p) { return QString::fromStdString(p.string()); };

    const auto imported =
        testing::runCli({"import", "--safetensors", path(dir / "crafted.safetensors"), "--config",
                         path(dir / "config.json"), "--tokenizer", path(tokenizer_), "--out", path(dir / "run")});
    const QString import_output = imported.out + imported.err;
    QCOMPARE(imported.exit_code, 1);
    QVERIFY2(!import_output.contains("frame #"), qPrintable(import_output));
    QVERIFY2(imported.err.contains("crafted.safetensors: tensor \"wte.weight\""), qPrintable(import_output));
    QVERIFY(!fs::exists(dir / "run"));

    // score reads the same file as a checkpoint's weights.
    torch::manual_seed(14);
    saveSafetensors(dir / "m.safetensors", buildModel(c)->exportTensors());
    const auto result =
        importResearchCheckpoint({dir / "m.safetensors", dir / "config.json", tokenizer_, dir / "scored", {}});
    testing::writeText(result.checkpoint / "model.safetensors", bytes + header);
    writeCheckpointManifest(result.checkpoint);  // the crafted bytes pass the manifest, reach the header checks
    const auto scored = testing::runCli({"score", "--checkpoint", path(result.run_dir), "--text", "Tom had a ball."});
    const QString score_output = scored.out + scored.err;
    QCOMPARE(scored.exit_code, 1);
    QVERIFY2(!score_output.contains("frame #"), qPrintable(score_output));
    QVERIFY2(scored.err.contains("model.safetensors: tensor \"wte.weight\""), qPrintable(score_output));
  }

  // Non-finite weights were reported as a diverged training run ("lower
  // learning_rate"); an unknown arch named a project.json that does not exist; a 300-character
  // --out name gave a raw filesystem error and "-rf" made a folder. Through the real CLI.
  void importMessagesNameTheFileAndTheFault() {
    const fs::path dir = testing::makeScratchDir("import-messages");
    const ModelConfig c = smallConfig("masked_mixer");
    testing::writeText(dir / "config.json", c.toJson().dump());
    torch::manual_seed(15);
    auto tensors = buildModel(c)->exportTensors();
    tensors.at("wte.weight") = tensors.at("wte.weight").detach().clone();
    tensors.at("wte.weight")[3][1] = std::numeric_limits<float>::quiet_NaN();
    tensors.at("wte.weight")[4][2] = std::numeric_limits<float>::infinity();
    saveSafetensors(dir / "nan.safetensors", tensors);
    const auto path = [](const fs::path& p) { return QString::fromStdString(p.string()); };
    const auto runImport = [&](const fs::path& weights, const fs::path& config, const fs::path& out) {
      return testing::runCli({"import", "--safetensors", path(weights), "--config", path(config), "--tokenizer",
                              path(tokenizer_), "--out", path(out)});
    };

    const auto nan = runImport(dir / "nan.safetensors", dir / "config.json", dir / "nan-run");
    QCOMPARE(nan.exit_code, 1);
    QVERIFY2(nan.err.contains("nan.safetensors: tensor \"wte.weight\" has 1 NaN and 1 infinite values"),
             qPrintable(nan.err));
    QVERIFY2(!nan.err.contains("diverged") && !nan.err.contains("learning_rate"), qPrintable(nan.err));
    QVERIFY(!fs::exists(dir / "nan-run"));

    nlohmann::json unknown = c.toJson();
    unknown["arch"] = "masked_mixr";
    testing::writeText(dir / "unknown.json", unknown.dump());
    saveSafetensors(dir / "ok.safetensors", buildModel(c)->exportTensors());
    const auto arch = runImport(dir / "ok.safetensors", dir / "unknown.json", dir / "arch-run");
    QCOMPARE(arch.exit_code, 1);
    QVERIFY2(arch.err.contains(path(dir / "unknown.json") + ": \"arch\" is \"masked_mixr\""), qPrintable(arch.err));
    QVERIFY2(arch.err.contains("masked_mixer, llama"), qPrintable(arch.err));  // the known architectures
    QVERIFY2(!arch.err.contains("project.json"), qPrintable(arch.err));
    // Other model fields are named in the config file the user wrote, too.
    nlohmann::json wrapped = {{"model", c.toJson()}};
    wrapped["model"]["d_model"] = -4;
    testing::writeText(dir / "wrapped.json", wrapped.dump());
    const auto field = runImport(dir / "ok.safetensors", dir / "wrapped.json", dir / "field-run");
    QCOMPARE(field.exit_code, 1);
    QVERIFY2(field.err.contains(path(dir / "wrapped.json") + ": model.d_model"), qPrintable(field.err));
    QVERIFY2(!field.err.contains("project.json"), qPrintable(field.err));

    const auto long_name = runImport(dir / "ok.safetensors", dir / "config.json", dir / std::string(300, 'a'));
    QCOMPARE(long_name.exit_code, 1);
    QVERIFY2(long_name.err.contains("300 characters long") && !long_name.err.contains("filesystem error"),
             qPrintable(long_name.err));
    const auto option = runImport(dir / "ok.safetensors", dir / "config.json", dir / "-rf");
    QCOMPARE(option.exit_code, 1);
    QVERIFY2(option.err.contains("starts with '-'"), qPrintable(option.err));
    QVERIFY(!fs::exists(dir / "-rf"));
    QVERIFY(runImport(dir / "ok.safetensors", dir / "config.json", dir / "ok-run").exit_code == 0);
  }
};

QTEST_GUILESS_MAIN(TestResearchFidelity)
#include "test_research_fidelity.moc"
