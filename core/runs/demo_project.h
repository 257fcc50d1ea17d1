// Where the bundled demo project is. In a source checkout it is projects/demo/project.json (the
// working directory's). An installed package ships it read-only in <prefix>/share/mixerlab/
// projects/demo; since training writes runs/ and cache/ beside the project file, the first use
// copies it to a writable folder ($XDG_DATA_HOME/mixerlab/demo, else ~/.local/share/mixerlab/demo)
// and uses that copy from then on.
#pragma once
#include <filesystem>

namespace mixerlab {

// The demo project file to open; empty when there is none (neither a checkout nor an install).
// `executable` is the running program (its ../share/mixerlab is the installed copy).
std::filesystem::path demoProjectFile(const std::filesystem::path& executable);

// The folder of the bundled projects (demo/, paper/ with reported_numbers.json, fineweb/), wherever
// MixerLab runs from: the working directory's projects/ (a checkout), the installed copy
// (<executable>/../share/mixerlab/projects), or the checkout the program was built from (a build
// tree run from another folder). Empty when none holds paper/reported_numbers.json.
std::filesystem::path bundledProjectsFolder(const std::filesystem::path& executable);

}  // namespace mixerlab
