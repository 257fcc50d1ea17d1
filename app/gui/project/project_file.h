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
// Writes <folder>/project.json on `corpus_file` (stored relative to the folder when inside it)
// with the research's pair, a masked mixer and a Llama-style transformer at the demo's laptop size,
// and the training budget in the defaults; validated by the core parser first. The window opens
// the project settings next. Error message or empty.
inline constexpr int kNewProjectSteps = 300;
inline constexpr int kNewProjectVocabulary = 4096;
QString createProject(const QString& folder, const QString& corpus_file, QString* project_file);

}  // namespace mixerlab::gui
