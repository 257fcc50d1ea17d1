// The compute paths and the environment table: every variable has its row, every compute path its
// setting, every value round-trips through the environment, the CLI flag and run.json, mistyped values
// are refused by name, and docs/compute-paths.md lists all of it. The table drives every case, so a
// new path or variable is covered by itself.
#include <fstream>
#include <set>
#include <sstream>

#include <QtTest/QtTest>

#include "core/runs/run_directory.h"
#include "core/runs/run_info.h"
#include "kernels/environment/compute_paths.h"
#include "tests/cli_process.h"
#include "tests/test_support.h"
#include "tests/training_fixture.h"

using namespace mixerlab;
using namespace mixerlab::kernels;
namespace fs = std::filesystem;

namespace {

// The values of a setting this machine takes (a SIMD set the CPU lacks is refused, by design).
std::vector<std::string> takenValues(const ComputePathSetting& setting) {
  std::vector<std::string> values;
  for (const std::string& value : setting.values) {
    ComputePaths probe;
    if (setting.set(probe, value)) values.push_back(value);
  }
  return values;
}

// Every compute-path variable unset, for the duration of a test.
struct CleanEnvironment {
  CleanEnvironment() {
    for (const ComputePathSetting& s : computePathSettings()) qunsetenv(environmentVariableName(s.variable));
  }
  ~CleanEnvironment() {
    for (const ComputePathSetting& s : computePathSettings()) qunsetenv(environmentVariableName(s.variable));
  }
};

// Each setting at its last value this machine takes: a struct unlike the defaults in every entry
// where one exists.
ComputePaths lastValues() {
  ComputePaths paths;
  for (const ComputePathSetting& s : computePathSettings()) s.set(paths, takenValues(s).back());
  return paths;
}

std::string readText(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A one-cell `bench train --grid` (the cell runs in a child process) with these --compute-path
// flags; its JSON file, or an empty object after a failed check.
nlohmann::json gridWith(const QStringList& paths) {
  const fs::path json = testing::makeScratchDir("compute-paths-grid") / "grid.json";
  QStringList args{
      "bench",    "train",   "--grid",    "--archs",  "mixer",   "--d-models", "16",
      "--layers", "1",       "--context", "8",        "--vocab", "32",         "--tokens-per-step",
      "32",       "--steps", "1",         "--warmup", "0",       "--json",     QString::fromStdString(json.string())};
  for (const QString& path : paths) args << "--compute-path" << path;
  const auto r = testing::runCli(args);
  [&] { QVERIFY2(r.exit_code == 0, qPrintable(r.err + r.out)); }();
  return r.exit_code == 0 ? nlohmann::json::parse(readText(json)) : nlohmann::json::object();
}

}  // namespace

class TestComputePaths : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void init() { setActiveComputePaths(ComputePaths{}); }
  void cleanup() { setActiveComputePaths(ComputePaths{}); }

  // Every enumerator has exactly one row, the rows are in enumerator order and the names are unique.
  void tableHasOneRowPerVariable() {
    std::set<std::string> names;
    for (size_t i = 0; i < kEnvironmentVariables.size(); ++i) {
      const auto variable = static_cast<EnvironmentVariable>(i);
      QCOMPARE(static_cast<size_t>(kEnvironmentVariables[i].variable), i);
      QCOMPARE(std::string(environmentVariableInfo(variable).name), std::string(kEnvironmentVariables[i].name));
      QVERIFY2(names.insert(kEnvironmentVariables[i].name).second, kEnvironmentVariables[i].name);
      QVERIFY(std::string(kEnvironmentVariables[i].meaning).size() > 10);
    }
    QCOMPARE(static_cast<size_t>(EnvironmentVariable::kXdgDataHome) + 1, kEnvironmentVariables.size());
  }

  // The compute-path variables of the table and the settings are the same set, one to one.
  void everyComputePathVariableHasOneSetting() {
    std::multiset<int> of_settings;
    std::set<std::string> keys;
    for (const ComputePathSetting& s : computePathSettings()) {
      of_settings.insert(static_cast<int>(s.variable));
      QVERIFY2(keys.insert(s.key).second, s.key);
      QCOMPARE(environmentVariableInfo(s.variable).role, EnvironmentRole::kComputePath);
    }
    std::multiset<int> of_table;
    for (const auto& info : kEnvironmentVariables) {
      if (info.role == EnvironmentRole::kComputePath) of_table.insert(static_cast<int>(info.variable));
    }
    QVERIFY(of_settings == of_table);
    QCOMPARE(computePathSettings().size(), size_t{7});
  }

  // The defaults are each setting's first value, and what the code paths took before they were
  // settings: automatic choices, the lane-per-state scan, the fused decode step, no CUDA graphs.
  void defaultsAreTheFirstValues() {
    const auto values = computePathValues(ComputePaths{});
    QCOMPARE(values.size(), computePathSettings().size());
    for (size_t i = 0; i < values.size(); ++i) {
      QCOMPARE(values[i].first, std::string(computePathSettings()[i].key));
      QCOMPARE(values[i].second, computePathSettings()[i].values.front());
    }
    QCOMPARE(describeComputePaths(ComputePaths{}),
             std::string("token_mix=auto mixer_stack=auto scan_forward=lanes row_simd=auto decode_step=fused "
                         "decode_graphs=off optimizer=auto"));
    const ComputePaths d;
    QVERIFY(d.token_mix == TokenMixPath::kAuto && !d.mixer_stack &&
            d.scan_forward == ScanForwardKernel::kLanePerState && !d.row_simd &&
            d.decode_step == DecodeStepPath::kFused && !d.decode_graphs && d.optimizer == OptimizerPath::kAuto);
  }

  // Each value of each setting, set alone through the environment and through the flag's parser,
  // reads back as itself, leaves every other entry at its default, and is what computePathsJson
  // records. An empty variable counts as unset.
  void everyValueRoundTrips() {
    const CleanEnvironment clean;
    const auto defaults = computePathValues(ComputePaths{});
    for (size_t i = 0; i < computePathSettings().size(); ++i) {
      const ComputePathSetting& s = computePathSettings()[i];
      for (const std::string& value : takenValues(s)) {
        qputenv(environmentVariableName(s.variable), QByteArray::fromStdString(value));
        const ComputePaths from_environment = computePathsFromEnvironment();
        qunsetenv(environmentVariableName(s.variable));
        ComputePaths from_flag;
        applyComputePath(from_flag, std::string(s.key) + "=" + value);
        QVERIFY(from_flag == from_environment);
        const auto got = computePathValues(from_environment);
        for (size_t j = 0; j < got.size(); ++j) {
          QCOMPARE(got[j].second, j == i ? value : defaults[j].second);
        }
        QCOMPARE(computePathsJson(from_environment).at(s.key).get<std::string>(), value);
        QCOMPARE(computePathsJson(from_environment).size(), computePathSettings().size());
      }
      qputenv(environmentVariableName(s.variable), "");
      QVERIFY(computePathsFromEnvironment() == ComputePaths{});
    }
  }

  // Two structs are equal exactly when every setting agrees: each setting moved alone away from its
  // default makes them differ.
  void equalityComparesEverySetting() {
    QVERIFY(ComputePaths{} == ComputePaths{});
    QVERIFY(lastValues() == lastValues());
    for (const ComputePathSetting& s : computePathSettings()) {
      for (const std::string& value : takenValues(s)) {
        ComputePaths changed;
        s.set(changed, value);
        QVERIFY2((changed == ComputePaths{}) == (value == s.values.front()),
                 (std::string(s.key) + "=" + value).c_str());
        QVERIFY2((changed != ComputePaths{}) == (value != s.values.front()),
                 (std::string(s.key) + "=" + value).c_str());
      }
    }
  }

  // Enum fields get the enumerators their names say (an independent spelling of the table).
  void namesMapToTheirEnumerators() {
    ComputePaths p;
    applyComputePath(p, "token_mix=gemm");
    QVERIFY(p.token_mix == TokenMixPath::kGemm);
    applyComputePath(p, "token_mix=custom");
    QVERIFY(p.token_mix == TokenMixPath::kCustom);
    applyComputePath(p, "mixer_stack=token_major");
    QVERIFY(p.mixer_stack == MixerStackPath::kTokenMajor);
    applyComputePath(p, "mixer_stack=fused");
    QVERIFY(p.mixer_stack == MixerStackPath::kFused);
    applyComputePath(p, "mixer_stack=modules");
    QVERIFY(p.mixer_stack == MixerStackPath::kModules);
    applyComputePath(p, "mixer_stack=auto");
    QVERIFY(!p.mixer_stack);
    applyComputePath(p, "scan_forward=thread");
    QVERIFY(p.scan_forward == ScanForwardKernel::kThreadPerChannel);
    applyComputePath(p, "row_simd=generic");
    QVERIFY(p.row_simd == RowSimd::kGeneric);
    applyComputePath(p, "decode_step=aten");
    QVERIFY(p.decode_step == DecodeStepPath::kAten);
    applyComputePath(p, "decode_graphs=on");
    QVERIFY(p.decode_graphs);
    applyComputePath(p, "optimizer=foreach");
    QVERIFY(p.optimizer == OptimizerPath::kForeach);
    applyComputePath(p, "optimizer=library");
    QVERIFY(p.optimizer == OptimizerPath::kLibrary);
    QCOMPARE(widestRowSimd() == RowSimd::kGeneric || rowSimdSupported(widestRowSimd()), true);
  }

  // A value no setting takes stops the parse, naming the variable, the value and every value it takes;
  // the flag names its key; an unknown key lists the keys.
  void mistypedValuesAreRefusedByName() {
    const CleanEnvironment clean;
    for (const ComputePathSetting& s : computePathSettings()) {
      const std::string name = environmentVariableName(s.variable);
      qputenv(name.c_str(), "fastest");
      try {
        computePathsFromEnvironment();
        QFAIL(("accepted " + name + "=fastest").c_str());
      } catch (const std::invalid_argument& e) {
        const std::string message = e.what();
        QVERIFY2(message.find(name + "=\"fastest\"") != std::string::npos, e.what());
        for (const std::string& value : s.values) QVERIFY2(message.find(value) != std::string::npos, e.what());
        // It ends by naming the default, and only the SIMD setting speaks of this CPU.
        const std::string ending = "(unset it for " + s.values.front() + ")";
        QVERIFY2(message.size() >= ending.size() &&
                     message.compare(message.size() - ending.size(), ending.size(), ending) == 0,
                 e.what());
        const bool names_the_cpu = message.find("this CPU supports") != std::string::npos &&
                                   message.find(rowSimdName(widestRowSimd())) != std::string::npos;
        QCOMPARE(names_the_cpu, s.variable == EnvironmentVariable::kRowSimd);
      }
      qunsetenv(name.c_str());
      ComputePaths p;
      QVERIFY_THROWS_EXCEPTION(std::invalid_argument, applyComputePath(p, std::string(s.key) + "=fastest"));
      QVERIFY(p == ComputePaths{});
    }
    ComputePaths p;
    try {
      applyComputePath(p, "stack=fused");
      QFAIL("accepted an unknown key");
    } catch (const std::invalid_argument& e) {
      for (const ComputePathSetting& s : computePathSettings())
        QVERIFY2(std::string(e.what()).find(s.key) != std::string::npos, e.what());
    }
  }

  // ScopedComputePaths sets the active paths for its scope and restores the earlier ones.
  void scopedPathsRestoreTheEarlierOnes() {
    ComputePaths outer;
    outer.decode_step = DecodeStepPath::kAten;
    setActiveComputePaths(outer);
    {
      const ScopedComputePaths scope(lastValues());
      QVERIFY(activeComputePaths() == lastValues());
    }
    QVERIFY(activeComputePaths() == outer);
  }

  // run.json records the active paths (every entry away from its default where this machine allows)
  // and reads them back.
  void runJsonRecordsThePaths() {
    const ScopedComputePaths scope(lastValues());
    const fs::path dir = testing::makeScratchDir("compute-paths-run");
    RunInfo info;
    info.run.name = "paths";
    info.run.model.arch = "masked_mixer";
    info.environment = environmentInfo("cpu");
    writeRunInfo(dir, info);
    const nlohmann::json recorded = readRunInfo(dir).environment.at("compute_paths");
    for (const auto& [key, value] : computePathValues(lastValues()))
      QCOMPARE(recorded.at(key).get<std::string>(), value);
    QCOMPARE(recorded.at("decode_graphs").get<std::string>(), std::string("on"));
    QCOMPARE(recorded.at("optimizer").get<std::string>(), std::string("library"));
  }

  // The CLI: a flag after the subcommand forces a path (bench train prints the paths it ran with),
  // the flag wins over the environment, and a bad flag or variable stops before any work.
  void cliFlagForcesAPathAndRefusesBadOnes() {
    const QStringList cell{"bench",     "train", "--arch",  "masked_mixer", "--d-model", "16", "--layers", "1",
                           "--context", "8",     "--vocab", "32",           "--batch",   "2",  "--steps",  "1",
                           "--warmup",  "0"};
    const auto plain = testing::runCli(cell);
    QVERIFY2(plain.exit_code == 0 && plain.out.contains("compute paths: token_mix=auto mixer_stack=auto"),
             qPrintable(plain.err + plain.out));
    qputenv("MIXERLAB_MIXER_STACK", "modules");
    const auto forced = testing::runCli(
        cell + QStringList{"--compute-path", "mixer_stack=token_major", "--compute-path", "optimizer=library"});
    qunsetenv("MIXERLAB_MIXER_STACK");
    QVERIFY2(forced.exit_code == 0 && forced.out.contains("mixer_stack=token_major") &&
                 forced.out.contains("optimizer=library"),
             qPrintable(forced.err + forced.out));
    const auto refused = testing::runCli(cell + QStringList{"--compute-path", "mixer_stack=fastest"});
    QVERIFY2(refused.exit_code != 0 && refused.err.contains("mixer_stack=\"fastest\"") &&
                 refused.err.contains("token_major") && !refused.out.contains("tokens_per_s"),
             qPrintable(refused.err + refused.out));
  }

  // A training run started with a flag records it in run.json (the flag reaches the run's process).
  void trainRecordsItsPathsInRunJson() {
    const fs::path dir = testing::makeScratchDir("compute-paths-train");
    const fs::path project = testing::writeTinyProject(dir, R"(, "max_steps": 2, "schedule_steps": 2)", 32, 32);
    const auto trained =
        testing::runCli({"--compute-path", "decode_step=aten", "train", QString::fromStdString(project.string()),
                         "--run", "mixer", "--run-id", "flagged", "--compute-path", "token_mix=gemm"});
    QVERIFY2(trained.exit_code == 0, qPrintable(trained.err));
    const nlohmann::json recorded = readRunInfo(dir / "runs" / "flagged").environment.at("compute_paths");
    QCOMPARE(recorded.at("decode_step").get<std::string>(), std::string("aten"));
    QCOMPARE(recorded.at("token_mix").get<std::string>(), std::string("gemm"));
    QCOMPARE(recorded.at("mixer_stack").get<std::string>(), std::string("auto"));
  }

  // A flag reaches the processes the CLI starts: each grid cell runs in a child, and records the paths
  // it ran with; the grid's JSON records the parent's.
  void flagReachesChildProcesses() {
    const nlohmann::json doc = gridWith({"optimizer=foreach", "mixer_stack=token_major"});
    QCOMPARE(doc.at("compute_paths").at("optimizer").get<std::string>(), std::string("foreach"));
    QCOMPARE(doc.at("cells").size(), size_t{1});
    const nlohmann::json& cell = doc.at("cells").at(0);
    QVERIFY2(cell.at("status").get<std::string>() == "ok", cell.dump().c_str());
    QCOMPARE(cell.at("compute_paths").at("optimizer").get<std::string>(), std::string("foreach"));
    QCOMPARE(cell.at("compute_paths").at("mixer_stack").get<std::string>(), std::string("token_major"));
    QCOMPARE(cell.at("compute_paths").at("token_mix").get<std::string>(), std::string("auto"));

    // A flag that sets a path back to its default also clears the variable for the children: the
    // environment's value must not come back in the cells.
    qputenv("MIXERLAB_TOKEN_MIX", "gemm");
    const nlohmann::json again = gridWith({"token_mix=auto"});
    qunsetenv("MIXERLAB_TOKEN_MIX");
    QCOMPARE(again.at("cells").at(0).at("compute_paths").at("token_mix").get<std::string>(), std::string("auto"));
  }

  // docs/compute-paths.md lists every variable of the table, and every key with all its values in
  // the key's row.
  void documentationListsEveryVariableKeyAndValue() {
    const std::string page = readText(testing::sourceDir() / "docs" / "compute-paths.md");
    for (const auto& info : kEnvironmentVariables) {
      QVERIFY2(page.find(std::string("`") + info.name + "`") != std::string::npos, info.name);
    }
    for (const ComputePathSetting& s : computePathSettings()) {
      const std::string start = std::string("| `") + s.key + "` |";
      const size_t row = page.find(start);
      QVERIFY2(row != std::string::npos, s.key);
      const std::string line = page.substr(row, page.find('\n', row) - row);
      for (const std::string& value : s.values)
        QVERIFY2(line.find("`" + value + "`") != std::string::npos, line.c_str());
    }
  }
};

QTEST_GUILESS_MAIN(TestComputePaths)
#include "test_compute_paths.moc"
