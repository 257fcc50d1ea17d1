// Project files on disk for the GUI: read the JSON as written, format it the way MixerLab writes
// it, write it atomically (temp file + rename, so a GUI edit never leaves a half-written file), and
// create a new project from a corpus. Validation is the caller's (ProjectDocument's) job.
#pragma once
#include <QString>
#include <string>

#include <nlohmann/json.hpp>

namespace mixerlab::gui {

// The project document as written (no defaults merged); null and *error set when unreadable.
nlohmann::json readProjectJson(const QString& project_file, QString* error);
// The file text for `document`: two-space indented JSON and a final newline.
std::string projectFileText(const nlohmann::json& document);
// Writes `text` atomically. Returns an error message, empty on success.
QString writeProjectFile(const QString& project_file, const std::string& text);
// Writes <folder>/project.json with one flat masked mixer run on `corpus_file`, validated by the
// core parser first. Error message or empty.
QString createProject(const QString& folder, const QString& corpus_file, QString* project_file);

}  // namespace mixerlab::gui
