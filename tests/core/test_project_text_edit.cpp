// Edits of project.json that keep the user's text (core/config/project_text_edit.h): the splicing
// finds the top-level "runs" array only, a replaced run keeps its old key order and the line layout
// it had, and every byte outside the edited run stays. The edits through the GUI's undoable project
// document are tested in tests/gui/test_project_file_edits.cpp.
#include <QtTest/QtTest>

#include <string>

#include <nlohmann/json.hpp>

#include "core/config/project_text_edit.h"

using namespace mixerlab;

namespace {
QString q(const std::string& text) { return QString::fromStdString(text); }

// Two runs: the first on one line with the user's key order, the second spread over lines.
const std::string kProject =
    "{\n  \"name\": \"p\",\n  \"runs\": [\n    {\"name\": \"a\", \"model\": {\"n_heads\": 4, \"arch\": \"llama\"}},\n"
    "    {\n      \"name\": \"b\"\n    }\n  ]\n}\n";
}  // namespace

class TestProjectTextEdit : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void splicingFindsTheRunsArrayOnly() {
    // A "runs" key inside another object, strings with brackets and escaped quotes: not the array.
    const std::string text =
        "{\"note\": \"[\\\"runs\\\"]\", \"defaults\": {\"runs\": []}, \"runs\": [{\"name\": \"a\"}]}\n";
    const auto added = spliceAddRun(text, nlohmann::ordered_json{{"name", "b"}});
    QVERIFY(added.has_value());
    QCOMPARE(q(*added),
             QString("{\"note\": \"[\\\"runs\\\"]\", \"defaults\": {\"runs\": []}, \"runs\": [{\"name\": \"a\"}, "
                     "{\"name\":\"b\"}]}\n"));
    QCOMPARE(q(*spliceRemoveRun(*added, 0)),
             QString("{\"note\": \"[\\\"runs\\\"]\", \"defaults\": {\"runs\": []}, \"runs\": [{\"name\":\"b\"}]}\n"));
    QVERIFY(!spliceAddRun("[1, 2]", nlohmann::ordered_json::object()).has_value());
  }

  void replacedRunKeepsItsKeyOrderAndLayout() {
    // The update lists "arch" first; the user's file had "n_heads" first, and that order stays.
    const auto one_line =
        spliceReplaceRun(kProject, 0, {{"name", "a"}, {"model", {{"arch", "llama"}, {"n_heads", 8}}}});
    QVERIFY(one_line.has_value());
    QCOMPARE(q(*one_line),
             q("{\n  \"name\": \"p\",\n  \"runs\": [\n    {\"name\": \"a\", \"model\": {\"n_heads\": 8, \"arch\": "
               "\"llama\"}},\n    {\n      \"name\": \"b\"\n    }\n  ]\n}\n"));
    // A run spread over lines is written over lines in the file's indentation; new keys come after.
    const auto spread = spliceReplaceRun(kProject, 1, {{"model", {{"arch", "gpt"}}}, {"name", "b"}});
    QVERIFY(spread.has_value());
    QCOMPARE(q(*spread),
             q("{\n  \"name\": \"p\",\n  \"runs\": [\n    {\"name\": \"a\", \"model\": {\"n_heads\": 4, \"arch\": "
               "\"llama\"}},\n    {\n      \"name\": \"b\",\n      \"model\": {\n        \"arch\": \"gpt\"\n"
               "      }\n    }\n  ]\n}\n"));
    QVERIFY(!spliceReplaceRun(kProject, 2, nlohmann::ordered_json::object()).has_value());  // no third run
    QVERIFY(!spliceRemoveRun(kProject, 2).has_value());
  }

  // Only the changed values' text changes: a one-line "model" object inside a run
  // spread over lines stays on one line, numbers keep their spelling ("5e-4", "1.0"), the spacing of
  // `"name":   "m"` survives; a removed key goes with its comma, first or last; a new
  // key follows its siblings' layout; a value that changes type is rewritten where it stood.
  void replacedRunChangesOnlyTheEditedValues() {
    const std::string project =
        "{\n  \"runs\": [\n    {\n      \"name\":   \"m\",\n      \"model\": {\"arch\": \"masked_mixer\", \"d_model\": "
        "64, "
        "\"n_layers\": 2},\n      \"train\": {\"learning_rate\": 5e-4, \"max_steps\": 300, \"grad_clip_norm\": 1.0}\n  "
        "  }\n  ]\n}\n";
    auto run = nlohmann::ordered_json::parse(
        R"({"name": "m", "model": {"arch": "masked_mixer", "d_model": 128, "n_layers": 2},)"
        R"( "train": {"learning_rate": 0.0005, "max_steps": 300, "grad_clip_norm": 1.0}})");
    QCOMPARE(
        q(*spliceReplaceRun(project, 0, run)),
        q("{\n  \"runs\": [\n    {\n      \"name\":   \"m\",\n      \"model\": {\"arch\": \"masked_mixer\", "
          "\"d_model\": "
          "128, \"n_layers\": 2},\n      \"train\": {\"learning_rate\": 5e-4, \"max_steps\": 300, \"grad_clip_norm\": "
          "1.0}\n    }\n  ]\n}\n"));
    // Remove the first and the last key of "model", add one to "train" and one to the run.
    run["model"] = {{"d_model", 128}};
    run["train"]["seed"] = 7;
    run["tags"] = {"a", "b"};
    QCOMPARE(q(*spliceReplaceRun(project, 0, run)),
             q("{\n  \"runs\": [\n    {\n      \"name\":   \"m\",\n      \"model\": {\"d_model\": 128},\n"
               "      \"train\": {\"learning_rate\": 5e-4, \"max_steps\": 300, \"grad_clip_norm\": 1.0, \"seed\": 7},\n"
               "      \"tags\": [\n        \"a\",\n        \"b\"\n      ]\n    }\n  ]\n}\n"));
    // A value of another type, and an object whose every key changes, are rewritten in place.
    run["model"] = "llama";
    run["train"] = {{"epochs", 2}};
    QCOMPARE(q(*spliceReplaceRun(project, 0, run)),
             q("{\n  \"runs\": [\n    {\n      \"name\":   \"m\",\n      \"model\": \"llama\",\n"
               "      \"train\": {\"epochs\": 2},\n"
               "      \"tags\": [\n        \"a\",\n        \"b\"\n      ]\n    }\n  ]\n}\n"));
  }

  // The project settings edited: each changed member is rewritten where it stood, a removed one
  // goes with its comma, a new one follows the last member; the runs keep every byte.
  void settingsEditKeepsTheRunsBytes() {
    const std::string runs = "[\n    {\"name\": \"a\", \"model\": {\"n_heads\": 4, \"arch\": \"llama\"}}\n  ]";
    const std::string text =
        "{\n  \"name\": \"p\",\n  \"corpus\": {\"train\": \"a.txt\", \"format\": \"auto\"},\n"
        "  \"runs\": " +
        runs + "\n}\n";
    nlohmann::ordered_json updated = nlohmann::ordered_json::parse(text);
    updated["name"] = "q";
    updated["corpus"]["train"] = "b.txt";
    updated["corpus"].erase("format");
    updated["tokenizer"] = {{"vocab_size", 512}};
    const auto spliced = spliceReplaceDocument(text, updated);
    QVERIFY(spliced.has_value());
    QCOMPARE(nlohmann::ordered_json::parse(*spliced), updated);
    QVERIFY2(spliced->find("  \"runs\": " + runs) != std::string::npos, spliced->c_str());
    QVERIFY2(spliced->find("\n  \"name\": \"q\",\n  \"corpus\": {\"train\": \"b.txt\"},\n") != std::string::npos,
             spliced->c_str());
    QCOMPARE(q(*spliceReplaceDocument(text, nlohmann::ordered_json::parse(text))), q(text));  // nothing changed
    QVERIFY(!spliceReplaceDocument("[1, 2]", updated).has_value());
    QVERIFY(!spliceReplaceDocument("{\"a\": ", updated).has_value());
  }

  void keyOrderFollowsTheOriginalThenNewKeys() {
    const auto original = nlohmann::ordered_json::parse(R"({"b": 1, "a": {"y": 1, "x": 2}})");
    const auto updated = nlohmann::ordered_json::parse(R"({"a": {"x": 3, "z": 0, "y": 1}, "c": 2})");
    QCOMPARE(q(keepKeyOrder(original, updated).dump()), QString(R"({"a":{"y":1,"x":3,"z":0},"c":2})"));
    // In arrays element by element; elements the original lacks come as they are.
    const auto runs = nlohmann::ordered_json::parse(R"({"runs": [{"name": "a", "model": 1}]})");
    const auto sorted = nlohmann::ordered_json::parse(R"({"runs": [{"model": 2, "name": "a"}, {"z": 0, "b": 1}]})");
    QCOMPARE(q(keepKeyOrder(runs, sorted).dump()), QString(R"({"runs":[{"name":"a","model":2},{"z":0,"b":1}]})"));
  }
};

QTEST_GUILESS_MAIN(TestProjectTextEdit)
#include "test_project_text_edit.moc"
