// Tests for research-scale data preparation: token shard files (uint16/uint32, damage refused), shards of
// the demo corpus equal to encoding each document directly, resumable preparation (stop requests and
// SIGKILLs at the kill points end with the same shards as an uninterrupted run), stale temporary files
// removed, long documents encoded in pieces or refused by name, the tokenizer's streamed sample, the
// eval corpus checked first, one preparer for concurrent starts, changed corpora named and pruned, a full
// disk, and the chunked layout and first-N-documents eval split.
#include <QtTest/QtTest>

#include <signal.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <mutex>
#include <set>
#include <thread>

#include "core/config/project_config.h"
#include "core/data/batching.h"
#include "core/data/corpus_reader.h"
#include "core/data/preparation_lock.h"
#include "core/data/prepared_data_folders.h"
#include "core/data/shard_preparation.h"
#include "core/data/token_cache.h"
#include "core/data/tokenizer_sample.h"
#include "core/data/tokenizer_trainer_input.h"
#include "core/runs/run_status.h"
#include "core/train/project_data.h"
#include "core/train/run_data.h"
#include "core/util/error.h"
#include "tests/small_disk.h"
#include "tests/test_support.h"
#include "tests/training_fixture.h"

using namespace mixerlab;
namespace fs = std::filesystem;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string fileBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Names of the files in `folder` containing ".tmp-".
std::vector<std::string> temporaryFiles(const fs::path& folder) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    if (contains(it->path().filename().string(), ".tmp-")) names.push_back(it->path().string());
  }
  return names;
}

// The one prepared-data folder of a cache (empty when there are several or none), or the one of the
// corpus file named `source` (its file name).
fs::path onlyDataFolder(const fs::path& cache, const std::string& source = {}) {
  std::vector<fs::path> found;
  for (const auto& entry : fs::directory_iterator(cache)) {
    if (entry.path().filename().string().rfind("data-", 0) != 0) continue;
    std::optional<DataManifest> manifest = readDataManifest(manifestFile(entry.path()));
    if (!manifest) manifest = readDataManifest(progressFile(entry.path()));
    if (source.empty() || (manifest && fs::path(manifest->sources.at(0).path).filename() == source)) {
      found.push_back(entry.path());
    }
  }
  return found.size() == 1 ? found.front() : fs::path();
}

QProcess::ExitStatus runPrepare(const fs::path& project, const QString& crash_at, QString* output,
                                const QStringList& extra = {}) {
  QProcess p;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  if (!crash_at.isEmpty()) env.insert("MIXERLAB_CRASH_AT", crash_at);
  p.setProcessEnvironment(env);
  p.setProcessChannelMode(QProcess::MergedChannels);
  p.start(QString::fromStdString(testing::cliPath().string()),
          QStringList{"data", "prepare", QString::fromStdString(project.string()), "--shard-tokens", "3000"} + extra);
  p.waitForFinished(300000);
  if (output) *output = QString::fromUtf8(p.readAll());
  return p.exitStatus();
}

}  // namespace

class TestDataShards : public QObject {
  Q_OBJECT

 private:
  fs::path scratch_;
  std::optional<Tokenizer> tokenizer_;  // vocab 512, trained on the demo corpus

 private Q_SLOTS:
  void initTestCase() {
    scratch_ = testing::makeScratchDir("data-shards");
    TokenizerSettings settings;
    settings.vocab_size = 512;
    tokenizer_ = Tokenizer::load(ensureTokenizer(testing::demoTrainCorpus(), CorpusFormat::Auto, settings, scratch_));
  }

  void shardWidthsAtTheirLimits() {
    QCOMPARE(tokenBytesForVocabulary(65536), 2u);
    QCOMPARE(tokenBytesForVocabulary(65537), 4u);
    const fs::path narrow = scratch_ / "narrow.bin";
    {
      TokenShardWriter writer(narrow, 2);
      writer.addDocument({0, 65535, 7});
      writer.addDocument({});
      writer.addDocument({1, 2});
      const std::string error = testing::errorOf([&] { writer.addDocument({5, 65536}); });
      QVERIFY2(contains(error, "65536") && contains(error, narrow.string()), error.c_str());
      QCOMPARE(writer.numDocuments(), uint64_t(3));  // the refused document left nothing behind
      writer.commit();
    }
    const TokenCache cache = TokenCache::open(narrow);
    QCOMPARE(cache.tokenBytes(), 2u);
    QCOMPARE(cache.numDocuments(), size_t(3));
    QCOMPARE(cache.numTokens(), size_t(5));
    QCOMPARE(cache.document(0).ids(), (std::vector<int>{0, 65535, 7}));
    QCOMPARE(cache.document(1).size, size_t(0));
    QCOMPARE(cache.document(2).ids(), (std::vector<int>{1, 2}));
    // 32-byte header, 5 uint16 tokens padded to 16 bytes, 4 offsets.
    QCOMPARE(fs::file_size(narrow), uintmax_t(32 + 16 + 4 * 8));

    const fs::path wide = scratch_ / "wide.bin";
    {
      TokenShardWriter writer(wide, 4);
      writer.addDocument({70000, 3});
      writer.commit();
    }
    QCOMPARE(TokenCache::open(wide).document(0).ids(), (std::vector<int>{70000, 3}));
    QCOMPARE(TokenCache::open(wide).tokenBytes(), 4u);
  }

  void damagedShardsAreRefused() {
    const fs::path source = scratch_ / "narrow.bin";
    const fs::path truncated = scratch_ / "truncated.bin", headerless = scratch_ / "headerless.bin";
    fs::copy_file(source, truncated, fs::copy_options::overwrite_existing);
    fs::resize_file(truncated, fs::file_size(truncated) - 8);
    std::string bytes = fileBytes(source);
    std::fill(bytes.begin(), bytes.begin() + 32, '\0');  // as a write killed before its header
    testing::writeText(headerless, bytes);
    for (const fs::path& path : {truncated, headerless}) {
      const std::string error = testing::errorOf([&] { TokenCache::open(path); });
      QVERIFY2(contains(error, path.string()) && contains(error, "delete"), error.c_str());
    }
    // An unfinished writer leaves no file under the final name and removes its temporary file.
    {
      TokenShardWriter writer(scratch_ / "abandoned.bin", 2);
      writer.addDocument({1, 2, 3});
    }
    QVERIFY(!fs::exists(scratch_ / "abandoned.bin"));
    QVERIFY(temporaryFiles(scratch_).empty());
  }

  // The shards hold exactly the ids of encoding each document with the tokenizer, in 16 bits.
  void demoShardsEqualDirectEncoding() {
    bool reused = true;
    const fs::path folder =
        prepareCorpusShards(testing::demoTrainCorpus(), CorpusFormat::Auto, *tokenizer_, scratch_ / "demo", &reused);
    QVERIFY(!reused);
    const TokenCache cache = TokenCache::open(folder);
    const auto documents = readCorpus(testing::demoTrainCorpus());
    QCOMPARE(cache.numDocuments(), documents.size());
    size_t tokens = 0;
    for (size_t i = 0; i < documents.size(); ++i) {
      QCOMPARE(cache.document(i).ids(), tokenizer_->encode(documents[i]));
      tokens += cache.document(i).size;
    }
    QCOMPARE(cache.numTokens(), tokens);
    QCOMPARE(cache.tokenBytes(), 2u);
    // Half the bytes of int32 ids for the tokens; offsets and the header are what they were.
    const uint64_t offsets_bytes = 8 * (documents.size() + 1);
    QCOMPARE(cache.fileBytes(), uint64_t(32 + ((2 * tokens + 7) / 8) * 8 + offsets_bytes));
    // The published manifest describes them.
    const auto manifest = readDataManifest(manifestFile(folder));
    QVERIFY(manifest && manifest->complete);
    QCOMPARE(manifest->documents, uint64_t(documents.size()));
    QCOMPARE(manifest->tokens, uint64_t(tokens));
    QCOMPARE(manifest->sources.size(), size_t(1));
    QCOMPARE(manifest->sources[0].documents, int64_t(documents.size()));
    QCOMPARE(manifest->tokenizer_hash, tokenizer_->hash());
    QVERIFY(!fs::exists(progressFile(folder)));
    QCOMPARE(
        prepareCorpusShards(testing::demoTrainCorpus(), CorpusFormat::Auto, *tokenizer_, scratch_ / "demo", &reused),
        folder);
    QVERIFY(reused);
  }

  // Shards are cut after the document that reaches shard_tokens; documents keep their numbers.
  void shardsAreCutAtTheirSize() {
    const auto documents = readCorpus(testing::demoTrainCorpus());
    ShardPreparation preparation;
    preparation.sources = expandCorpusSources({testing::demoTrainCorpus().string()}, CorpusFormat::Auto);
    preparation.shard_tokens = 1000;
    PrepareLimits limits;
    limits.memory_bytes = 8 * 16384;  // blocks of 16 KB of text
    limits.threads = 2;
    const fs::path folder = prepareTokenShards(preparation, *tokenizer_, scratch_ / "cut", limits);
    const TokenCache cache = TokenCache::open(folder);
    size_t expected_shards = 0, in_shard = 0;
    for (size_t i = 0; i < documents.size(); ++i) {
      const std::vector<int> ids = tokenizer_->encode(documents[i]);
      QCOMPARE(cache.document(i).ids(), ids);
      in_shard += ids.size();
      if (in_shard >= 1000) {
        ++expected_shards;
        in_shard = 0;
      }
    }
    if (in_shard > 0) ++expected_shards;
    QVERIFY(expected_shards > 3);
    QCOMPARE(cache.numShards(), expected_shards);
  }

  // A stop request ends preparation after a finished shard; the next start resumes and ends with the
  // shards an uninterrupted preparation writes.
  void stoppedPreparationResumesToTheSameShards() {
    ShardPreparation preparation;
    preparation.sources = expandCorpusSources({testing::demoTrainCorpus().string()}, CorpusFormat::Auto);
    preparation.shard_tokens = 1000;
    std::atomic<bool> stop{false};
    PrepareLimits limits;
    limits.memory_bytes = 8 * 16384;
    limits.stop = &stop;
    int reports = 0;
    limits.on_progress = [&](const PrepareProgress&) {
      if (++reports == 3) stop = true;
    };
    const fs::path cache = scratch_ / "stopped";
    QVERIFY_EXCEPTION_THROWN(prepareTokenShards(preparation, *tokenizer_, cache, limits), PreparationStopped);
    const fs::path folder = onlyDataFolder(cache);
    const auto progress = readDataManifest(progressFile(folder));
    QVERIFY(progress && !progress->complete && !progress->shards.empty());
    QVERIFY(!fs::exists(manifestFile(folder)));
    stop = false;
    std::vector<std::string> lines;
    limits.log = [&](const std::string& line) { lines.push_back(line); };
    QCOMPARE(prepareTokenShards(preparation, *tokenizer_, cache, limits), folder);
    QVERIFY(std::any_of(lines.begin(), lines.end(), [](const auto& l) { return contains(l, "resuming"); }));
    const fs::path whole = onlyDataFolder(scratch_ / "cut");  // the same preparation, never stopped
    for (const auto& entry : fs::directory_iterator(whole)) {
      const std::string name = entry.path().filename().string();
      if (name.rfind("shard-", 0) != 0) continue;
      QVERIFY2(fileBytes(entry.path()) == fileBytes(folder / name), name.c_str());
    }
    QCOMPARE(TokenCache::open(folder).numShards(), TokenCache::open(whole).numShards());
  }

  // SIGKILL at each kill point of `mixerlab data prepare`, then a plain start: the same shards as one
  // uninterrupted preparation, and no temporary file left.
  void killedPreparationResumesToTheSameShards() {
    const fs::path clean_dir = scratch_ / "kill-clean";
    const fs::path clean_project = testing::writeTinyProject(clean_dir);
    QString output;
    QCOMPARE(runPrepare(clean_project, {}, &output), QProcess::NormalExit);
    const fs::path clean = onlyDataFolder(clean_dir / "cache", "stories-b.txt");
    QVERIFY2(!clean.empty(), qPrintable(output));
    QVERIFY(TokenCache::open(clean).numShards() >= 3);
    for (const QString crash_at : {"prepare-after-shard@2", "shard-before-offsets@3", "prepare-before-manifest"}) {
      const fs::path dir = scratch_ / ("kill-" + crash_at.section('@', 0, 0).toStdString());
      const fs::path project = testing::writeTinyProject(dir);
      QCOMPARE(runPrepare(project, crash_at, &output), QProcess::CrashExit);
      const fs::path folder = onlyDataFolder(dir / "cache", "stories-b.txt");
      QVERIFY2(!folder.empty(), qPrintable(output));
      QVERIFY(!fs::exists(manifestFile(folder)));
      if (crash_at.startsWith("shard-before-offsets")) QVERIFY(!temporaryFiles(folder).empty());
      QCOMPARE(runPrepare(project, {}, &output), QProcess::NormalExit);
      QVERIFY2(output.contains("resuming"), qPrintable(output));
      if (crash_at.startsWith("shard-before-offsets")) QVERIFY2(output.contains("removed"), qPrintable(output));
      QCOMPARE(folder.filename(), clean.filename());
      QVERIFY2(temporaryFiles(dir).empty(), qPrintable(output));
      const auto a = readDataManifest(manifestFile(clean));
      const auto b = readDataManifest(manifestFile(folder));
      QVERIFY(a && b);
      QCOMPARE(b->shards.size(), a->shards.size());
      for (const ManifestShard& shard : a->shards) {
        QVERIFY2(fileBytes(clean / shard.file) == fileBytes(folder / shard.file),
                 qPrintable(crash_at + ": " + QString::fromStdString(shard.file)));
      }
    }
  }

  // SIGTERM to `mixerlab train` while it tokenizes a larger corpus: status "stopped" within seconds.
  void sigtermDuringPreparationStopsTheRun() {
    const fs::path dir = scratch_ / "sigterm";
    fs::create_directories(dir);
    {
      std::ofstream corpus(dir / "big.txt");
      const auto documents = readCorpus(testing::demoTrainCorpus());
      for (int copy = 0; copy < 200; ++copy) {
        for (const auto& d : documents) corpus << d << " " << copy << "\n\n";
      }
    }
    auto project = nlohmann::json::parse(fileBytes(testing::writeTinyProject(dir)));
    project["corpus"]["train"] = (dir / "big.txt").string();
    project["tokenizer"]["file"] = tokenizer_->modelPath().string();  // no tokenizer training: straight to shards
    testing::writeText(dir / "project.json", project.dump());
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(QString::fromStdString(testing::cliPath().string()),
            {"train", QString::fromStdString((dir / "project.json").string()), "--run", "mixer", "--threads", "1"});
    QVERIFY(p.waitForStarted());
    QByteArray early;  // the run has started preparing: its signal handlers are in place
    while (!early.contains("tokenizer (from tokenizer.file)") && p.waitForReadyRead(30000)) early += p.readAll();
    QTest::qWait(300);
    QCOMPARE(p.state(), QProcess::Running);  // still preparing
    const auto asked = std::chrono::steady_clock::now();
    ::kill(static_cast<pid_t>(p.processId()), SIGTERM);
    QVERIFY(p.waitForFinished(10000));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - asked).count();
    const QString output = QString::fromUtf8(early + p.readAll());
    QVERIFY2(seconds < 5.0, qPrintable(QString::number(seconds) + " s: " + output));
    QCOMPARE(p.exitCode(), 0);
    const auto status = readRunStatus(dir / "runs" / "mixer");
    QVERIFY2(status && status->state == RunState::Stopped, qPrintable(output));
    QVERIFY2(contains(status->reason, "data preparation"), status->reason.c_str());
  }

  void staleTemporaryFilesAreRemovedAtStart() {
    const fs::path dir = scratch_ / "stale";
    const ProjectConfig project = loadProject(testing::writeTinyProject(dir));
    ProjectDataOptions options;
    const PreparedProjectData first = prepareProjectData(project, options);
    const fs::path in_cache = project.cacheDirectory() / "tokens-abc-def.bin.tmp-999-0";
    const fs::path in_folder = first.train_data / "shard-00009.bin.tmp-999-1";
    testing::writeText(in_cache, "left by a killed build");
    testing::writeText(in_folder, "left by a killed shard write");
    fs::remove(manifestFile(first.eval_data));  // the eval data is prepared again
    const fs::path eval_leftover = first.eval_data / "shard-00000.bin.tmp-999-2";
    testing::writeText(eval_leftover, "left by a killed shard write");
    std::vector<std::string> lines;
    options.log = [&](const std::string& line) { lines.push_back(line); };
    prepareProjectData(project, options);
    QVERIFY(!fs::exists(in_cache));
    QVERIFY(!fs::exists(in_folder));
    QVERIFY(!fs::exists(eval_leftover));
    QVERIFY(std::any_of(lines.begin(), lines.end(),
                        [&](const auto& l) { return contains(l, "removed " + in_cache.string()); }));
  }

  void longDocumentsAreEncodedInPiecesOrRefusedByName() {
    std::string lines;
    const auto documents = readCorpus(testing::demoTrainCorpus());
    for (size_t i = 0; lines.size() < 300000; ++i) lines += documents[i % documents.size()] + "\n";
    const std::string document = lines + "The end.";
    EncodeLimits small;
    small.piece_bytes = 4096;
    for (const NewlineMode mode : {NewlineMode::Token, NewlineMode::Unk}) {
      const DocumentEncoder pieces(*tokenizer_, mode, small);
      QCOMPARE(pieces(document), encodeDocument(*tokenizer_, document, mode));
    }
    QCOMPARE(DocumentEncoder(*tokenizer_, NewlineMode::Token, small)(document), tokenizer_->encode(document));

    // A line longer than max_line_bytes: refused naming the document, from a worker thread too.
    small.max_line_bytes = 65536;
    const DocumentEncoder limited(*tokenizer_, NewlineMode::Token, small);
    const std::vector<std::string> block{"short story.", std::string(200000, 'a'), "another."};
    const std::vector<std::string> names{"c.txt, document 1", "c.txt, document 2", "c.txt, document 3"};
    const std::string error = testing::errorOf([&] { encodeDocuments(block, limited, 2, &names); });
    QVERIFY2(contains(error, "c.txt, document 2") && contains(error, "without a line break"), error.c_str());
    // A stretch of exactly max_line_bytes is encoded; one byte more is refused.
    EncodeLimits exact = small;
    exact.max_line_bytes = 200000;
    QCOMPARE(DocumentEncoder(*tokenizer_, NewlineMode::Token, exact)(block[1]), tokenizer_->encode(block[1]));
    exact.max_line_bytes = 199999;
    QVERIFY(contains(testing::errorOf([&] { DocumentEncoder(*tokenizer_, NewlineMode::Token, exact)(block[1]); }),
                     "without a line break"));
  }

  void tokenizerSampleIsBoundedAndNamesOverlongDocuments() {
    const fs::path dir = scratch_ / "sample";
    fs::create_directories(dir);
    std::string text;
    for (int i = 0; i < 10; ++i) text += "story " + std::to_string(i) + "\n\n";
    testing::writeText(dir / "ten.txt", text);
    TokenizerSettings settings;
    settings.max_training_documents = 3;
    const auto sources = expandCorpusSources({(dir / "ten.txt").string()}, CorpusFormat::Auto);
    QCOMPARE(sampleTokenizerDocuments(sources, "text", settings, {}),
             (std::vector<std::string>{"story 0", "story 3", "story 6"}));
    settings.max_training_documents = 10;  // exactly the corpus: all of it
    QCOMPARE(sampleTokenizerDocuments(sources, "text", settings, {}).size(), size_t(10));

    const std::string over(static_cast<size_t>(kTrainerMaxSentenceBytes) + 1, 'b');
    testing::writeText(dir / "long.txt", over + "\n\n" + over);
    TokenizerSettings tiny;
    tiny.vocab_size = 64;
    const std::string error = testing::errorOf([&] {
      ensureTokenizer(expandCorpusSources({(dir / "long.txt").string()}, CorpusFormat::Auto), "text", tiny,
                      dir / "cache", {});
    });
    QVERIFY2(contains(error, (dir / "long.txt").string()) && contains(error, "longer than"), error.c_str());
  }

  void evalCorpusIsCheckedBeforeAnyWork() {
    const fs::path dir = scratch_ / "bad-eval";
    auto project_json = nlohmann::json::parse(fileBytes(testing::writeTinyProject(dir)));
    testing::writeText(dir / "eval.jsonl", "{\"text\": \"fine\"}\n{\"text\": broken\n");
    project_json["corpus"]["eval"] = (dir / "eval.jsonl").string();
    project_json["corpus"].erase("format");
    project_json["corpus"]["train"] = testing::demoTrainCorpus().string();
    testing::writeText(dir / "project.json", project_json.dump());
    const ProjectConfig project = loadProject(dir / "project.json");
    const std::string error = testing::errorOf([&] { prepareProjectData(project, {}); });
    QVERIFY2(contains(error, "eval.jsonl:2"), error.c_str());
    QVERIFY(!fs::exists(project.cacheDirectory()) || fs::is_empty(project.cacheDirectory()));
  }

  // Two runs of one project started together: one prepares, the other waits and opens what it
  // published, and both train.
  void concurrentStartsPrepareOnce() {
    const fs::path project = testing::writeTinyProject(scratch_ / "twice");
    QProcess runs[2];
    const char* names[2] = {"mixer", "llama"};
    for (int k = 0; k < 2; ++k) {
      runs[k].setProcessChannelMode(QProcess::MergedChannels);
      runs[k].start(QString::fromStdString(testing::cliPath().string()),
                    {"train", QString::fromStdString(project.string()), "--run", names[k], "--max-steps", "2"});
    }
    QString output;
    for (auto& run : runs) {
      QVERIFY(run.waitForFinished(300000));
      const QString text = QString::fromUtf8(run.readAll());
      QVERIFY2(run.exitCode() == 0, qPrintable(text));
      output += text;
    }
    QCOMPARE(output.count("tokenizer trained"), 1);
    QCOMPARE(output.count("tokenizer (cached)"), 1);
    QCOMPARE(output.count("training data prepared"), 1);
    QCOMPARE(output.count("training data (prepared before)"), 1);
    for (const char* name : names) {
      const auto status = readRunStatus(scratch_ / "twice" / "runs" / name);
      QVERIFY(status && status->state == RunState::Finished);
    }
  }

  void changedCorpusIsNamedListedAndPruned() {
    const fs::path dir = scratch_ / "changed";
    fs::create_directories(dir);
    fs::copy_file(testing::sourceDir() / "projects/demo/data/stories-a.txt", dir / "train.txt");
    auto project_json = nlohmann::json::parse(fileBytes(testing::writeTinyProject(dir)));
    project_json["corpus"]["train"] = (dir / "train.txt").string();
    testing::writeText(dir / "project.json", project_json.dump());
    const ProjectConfig project = loadProject(dir / "project.json");
    ProjectDataOptions options;
    options.shard_tokens = 5000;
    const PreparedProjectData before = prepareProjectData(project, options);
    std::ofstream(dir / "train.txt", std::ios::app) << "\n\nOne more story about a cat.\n";
    std::vector<std::string> lines;
    options.log = [&](const std::string& line) { lines.push_back(line); };
    // The tokenizer is trained again on the changed corpus; the shards are prepared again.
    const PreparedProjectData after = prepareProjectData(project, options);
    QVERIFY(after.train_data != before.train_data);
    QVERIFY2(std::any_of(lines.begin(), lines.end(),
                         [&](const auto& l) { return contains(l, (dir / "train.txt").string() + " changed"); }),
             "the changed file is named");
    // Stale: the old training data (its corpus changed), the old eval data and the old tokenizer (the
    // tokenizer learned from the changed file); current: their successors.
    const auto entries = listPreparedData(project.cacheDirectory());
    std::set<fs::path> stale;
    int current = 0;
    for (const auto& e : entries) {
      if (e.state == PreparedDataState::Stale) {
        stale.insert(e.path);
        QVERIFY2(contains(e.reason, (dir / "train.txt").string() + " changed"), e.reason.c_str());
      }
      if (e.state == PreparedDataState::Current) ++current;
    }
    QCOMPARE(stale, (std::set<fs::path>{before.train_data, before.eval_data, before.tokenizer_path}));
    QCOMPARE(current, 3);
    testing::writeText(project.cacheDirectory() / "tokens-old-format.bin", "an old cache");
    const auto removed = pruneStalePreparedData(project.cacheDirectory());
    QCOMPARE(removed.size(), size_t(4));
    QVERIFY(!fs::exists(before.tokenizer_path));
    QVERIFY(!fs::exists(tokenizerSourcesFile(before.tokenizer_path)));
    QVERIFY(fs::exists(after.tokenizer_path));
    QVERIFY(!fs::exists(before.train_data));
    QVERIFY(!fs::exists(project.cacheDirectory() / "tokens-old-format.bin"));
    QVERIFY(fs::exists(manifestFile(after.train_data)));
    QVERIFY(fs::exists(manifestFile(after.eval_data)));
  }

  void fullDiskKeepsThePreviousManifest() {
    const fs::path mount_point = scratch_ / "small-disk";
    const testing::SmallDisk disk(mount_point, "4m");
    if (!disk.error().isEmpty()) QSKIP(qPrintable(disk.error()));
    const fs::path cache = mount_point / "cache";
    const fs::path corpus = mount_point / "train.txt";
    fs::copy_file(testing::demoTrainCorpus(), corpus);
    const fs::path previous = prepareCorpusShards(corpus, CorpusFormat::Auto, *tokenizer_, cache);
    const std::string manifest_before = fileBytes(manifestFile(previous));
    std::ofstream(corpus, std::ios::app) << "\n\nA changed corpus.\n";
    QVERIFY(testing::fillDiskLeaving(mount_point / "filler", 16 * 1024));
    const std::string error =
        testing::errorOf([&] { prepareCorpusShards(corpus, CorpusFormat::Auto, *tokenizer_, cache); });
    QVERIFY2(contains(error, "the disk is full") && contains(error, "free disk space"), error.c_str());
    QCOMPARE(fileBytes(manifestFile(previous)), manifest_before);
    QCOMPARE(TokenCache::open(previous).numDocuments(), readCorpus(testing::demoTrainCorpus()).size());
    QVERIFY(temporaryFiles(cache).empty());
  }

  // Blog II's layout: each document cut into rows of T (remainders dropped), never across documents;
  // the first N documents as the eval split.
  void chunkedRowsAndFirstDocumentsEval() {
    const fs::path path = scratch_ / "chunks.bin";
    {
      TokenShardWriter writer(path, 2);
      writer.addDocument({10, 11, 12, 13, 14, 15, 16, 17, 18});  // 2 rows of 4, 1 token dropped
      writer.addDocument({20, 21, 22});                          // shorter than T: no row
      writer.addDocument({30, 31, 32, 33});                      // exactly one row
      writer.commit();
    }
    const TokenCache cache = TokenCache::open(path);
    BatchingSettings settings;
    settings.context_length = 4;
    settings.batch_size = 2;
    settings.mode = BatchMode::Chunked;
    const ExampleSet set(cache, {0, 1, 2}, settings);
    QCOMPARE(set.numExamples(), int64_t(3));
    const std::vector<std::vector<int64_t>> rows{{10, 11, 12, 13}, {14, 15, 16, 17}, {30, 31, 32, 33}};
    for (int64_t e = 0; e < 3; ++e) {
      std::vector<int64_t> ids(4), labels(4);
      set.fill(e, ids.data(), labels.data());
      QCOMPARE(ids, rows[static_cast<size_t>(e)]);
      QCOMPARE(labels, rows[static_cast<size_t>(e)]);
    }
    QCOMPARE(parseBatchMode("chunked"), BatchMode::Chunked);
    QCOMPARE(batchModeName(BatchMode::Chunked), std::string("chunked"));

    ProjectConfig project;
    project.corpus.eval_documents = 3;
    project.corpus.max_examples = 2;
    auto [train, eval] = trainEvalDocuments(project, 7);
    QCOMPARE(eval, (std::vector<size_t>{0, 1, 2}));
    QCOMPARE(train, (std::vector<size_t>{3, 4}));
    project.corpus.eval_documents = 7;
    QVERIFY(contains(testing::errorOf([&] { trainEvalDocuments(project, 7); }), "eval_documents"));
    project.corpus.eval_documents = 6;
    QCOMPARE(trainEvalDocuments(project, 7).first, (std::vector<size_t>{6}));
  }
};

QTEST_GUILESS_MAIN(TestDataShards)
#include "test_data_shards.moc"
