// `mixerlab config schema [--json | --markdown DOC]`: every field a project file can hold, from the
// core's field declarations (the same list the GUI form and the docs are made from).
#include <cstdio>
#include <iostream>

#include <CLI/CLI.hpp>

#include "app/cli/cli_commands.h"
#include "core/config/config_schema.h"

namespace mixerlab::cli {
namespace {

void printSection(const std::string& title, const std::string& prefix, const std::vector<FieldSpec>& specs) {
  std::printf("%s\n", title.c_str());
  for (const auto& s : specs) {
    std::string families;
    for (const auto& f : s.families) families += (families.empty() ? " [" : ", ") + f;
    if (!families.empty()) families += "]";
    std::printf("  %-32s %-12s %-24s %s%s\n", (prefix + s.key).c_str(), s.defaultForDocs().c_str(),
                s.rangeForDocs().c_str(), s.help.c_str(), families.c_str());
  }
}

int schemaCommand(bool as_json, const std::string& markdown) {
  if (as_json) {
    std::cout << configSchemaJson().dump(2) << "\n";
  } else if (!markdown.empty()) {
    std::cout << configSchemaMarkdown(markdown);
  } else {
    printSection("project", "", projectFieldSpecs());
    printSection("runs[i]", "", runFieldSpecs());
  }
  return 0;
}

}  // namespace

void addConfigCommands(CLI::App& app, Action& action) {
  struct Options {
    bool json = false;
    std::string markdown;
  };
  auto o = std::make_shared<Options>();
  auto* config = app.add_subcommand("config", "Project-file settings");
  config->require_subcommand(1);
  auto* schema = config->add_subcommand("schema", "Every project-file field: key, default, range, families, help");
  auto* json =
      schema->add_flag("--json", o->json, "Print JSON (project fields, run fields, families and their options)");
  std::string documents;
  for (const auto& d : configSchemaDocuments()) documents += (documents.empty() ? "" : ", ") + d;
  schema->add_option("--markdown", o->markdown, "Print the docs tables of one document: " + documents)
      ->check(CLI::IsMember(configSchemaDocuments()))
      ->excludes(json);
  schema->callback([o, &action]() { action = [o]() { return schemaCommand(o->json, o->markdown); }; });
}

}  // namespace mixerlab::cli
