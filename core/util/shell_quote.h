// Quoting a word for a POSIX shell, the one way MixerLab writes command lines that a shell reads
// again: an ssh remote command, a Slurm batch script.
#pragma once
#include <string>

namespace mixerlab {

// 'it'\''s' style single quoting: the shell reads back exactly `word`, whatever it holds.
std::string shellQuote(const std::string& word);

}  // namespace mixerlab
