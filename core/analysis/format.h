// The one formatter for numbers a person reads: counts, scaled quantities (FLOPs, bytes,
// parameters), durations and losses. The CLI, the GUI and the logs all print through it, so a
// figure reads the same everywhere. Plain std::string, no torch, no Qt.
#pragma once
#include <cstdint>
#include <string>

namespace mixerlab {

// Thousands separators: 3220992 -> "3,220,992" (rounded to an integer).
std::string formatCount(double count);

// Three significant digits with a unit prefix: 5512345 FLOP -> "5.51 MFLOP"; 136314880 B -> "130 MiB".
std::string formatFlops(double flops);
std::string formatBytes(double bytes);                                 // binary prefixes (KiB, MiB, ...)
std::string formatMetric(double value, const std::string& unit = "");  // decimal prefixes: "3.22 M"

// Elapsed or remaining time: 98 -> "1:38", 3723 -> "1:02:03" (rounded to the second).
std::string formatDuration(double seconds);

// A loss as runs tables show it: 4 decimals ("4.3750"); "n/a" when not a finite number.
std::string formatLoss(double loss);

}  // namespace mixerlab
