// Probing what a machine can train on, here or over SSH (see hardware_report.h).
#include "core/train/hardware_report.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/distributed/process_group.h"
#include "core/runs/run_directory.h"
#include "core/train/device.h"
#include "core/util/error.h"

namespace mixerlab {

namespace {

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

std::string formatGib(double gib) {
  char buffer[32];
  if (gib >= 10) {
    std::snprintf(buffer, sizeof buffer, "%.0f", gib);
  } else {
    std::snprintf(buffer, sizeof buffer, "%.1f", gib);
  }
  return buffer;
}

}  // namespace

std::vector<GpuDescription> parseNvidiaSmiGpus(const std::string& csv) {
  std::vector<GpuDescription> gpus;
  std::istringstream lines(csv);
  std::string line;
  while (std::getline(lines, line)) {
    // "0, NVIDIA H100 80GB HBM3, 81559" (memory in MiB). Names hold no commas.
    const auto first = line.find(','), last = line.rfind(',');
    if (first == std::string::npos || last == first) continue;
    try {
      GpuDescription gpu;
      size_t used = 0;
      const std::string index = trim(line.substr(0, first)), memory = trim(line.substr(last + 1));
      gpu.index = std::stoi(index, &used);
      if (used != index.size()) continue;
      gpu.memory_gib = std::stod(memory, &used) / 1024.0;
      if (used != memory.size()) continue;
      gpu.name = trim(line.substr(first + 1, last - first - 1));
      if (gpu.name.empty()) continue;
      gpus.push_back(gpu);
    } catch (const std::exception&) {
      continue;  // a warning line, "[N/A]" memory, ...
    }
  }
  return gpus;
}

HardwareReport probeThisMachine() {
  HardwareReport report;
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) == 0) report.host = host;
  report.cpu_cores = static_cast<int>(std::max(1L, ::sysconf(_SC_NPROCESSORS_ONLN)));
  const long pages = ::sysconf(_SC_PHYS_PAGES), page_size = ::sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page_size > 0) report.memory_gib = double(pages) * double(page_size) / (1024.0 * 1024 * 1024);
  std::string output;
  try {
    if (runCapture({"nvidia-smi", "--query-gpu=index,name,memory.total", "--format=csv,noheader,nounits"}, &output) ==
        0) {
      report.gpus = parseNvidiaSmiGpus(output);
    }
  } catch (const std::exception&) {
    // no nvidia-smi: the GPU list stays as LibTorch sees it below
  }
  report.usable_gpus = static_cast<int>(cudaDeviceCount());
  for (int i = static_cast<int>(report.gpus.size()); i < report.usable_gpus; ++i) {
    report.gpus.push_back({i, "CUDA device " + std::to_string(i), 0});  // seen by LibTorch, not nvidia-smi
  }
  report.nccl_built_in = ncclBuiltIn();
  report.mixerlab_version = toolVersion();
  return report;
}

nlohmann::json hardwareReportToJson(const HardwareReport& report) {
  nlohmann::json gpus = nlohmann::json::array();
  for (const GpuDescription& gpu : report.gpus) {
    gpus.push_back({{"index", gpu.index}, {"name", gpu.name}, {"memory_gib", gpu.memory_gib}});
  }
  return {{"host", report.host},
          {"cpu_cores", report.cpu_cores},
          {"memory_gib", report.memory_gib},
          {"gpus", gpus},
          {"usable_gpus", report.usable_gpus},
          {"nccl_built_in", report.nccl_built_in},
          {"mixerlab_version", report.mixerlab_version}};
}

HardwareReport hardwareReportFromJson(const nlohmann::json& j) {
  const auto field = [&j](const char* name) -> const nlohmann::json& {
    if (!j.is_object() || !j.contains(name)) {
      throw MixerLabError(std::string("hardware report has no \"") + name + "\"",
                          "run the same mixerlab version on both machines (`mixerlab probe --json` prints it)");
    }
    return j.at(name);
  };
  try {
    HardwareReport report;
    report.host = field("host").get<std::string>();
    report.cpu_cores = field("cpu_cores").get<int>();
    report.memory_gib = field("memory_gib").get<double>();
    for (const auto& gpu : field("gpus")) {
      report.gpus.push_back(
          {gpu.at("index").get<int>(), gpu.at("name").get<std::string>(), gpu.at("memory_gib").get<double>()});
    }
    report.usable_gpus = field("usable_gpus").get<int>();
    report.nccl_built_in = field("nccl_built_in").get<bool>();
    report.mixerlab_version = j.value("mixerlab_version", std::string());
    return report;
  } catch (const nlohmann::json::exception& e) {
    throw MixerLabError(std::string("malformed hardware report: ") + e.what(),
                        "run the same mixerlab version on both machines (`mixerlab probe --json` prints it)");
  }
}

std::string describeHardware(const HardwareReport& report) {
  std::string gpus;
  if (report.gpus.empty()) {
    gpus = "no GPU";
  } else {
    // Group equal GPUs: "4x Tesla V100-SXM2-32GB (32 GiB each)".
    bool all_same = true;
    for (const auto& gpu : report.gpus) all_same = all_same && gpu.name == report.gpus.front().name;
    const auto one = [](const GpuDescription& gpu) {
      return gpu.name + (gpu.memory_gib > 0 ? " (" + formatGib(gpu.memory_gib) + " GiB)" : "");
    };
    if (all_same) {
      gpus = std::to_string(report.gpus.size()) + "x " + report.gpus.front().name;
      if (report.gpus.front().memory_gib > 0) gpus += " (" + formatGib(report.gpus.front().memory_gib) + " GiB each)";
    } else {
      for (size_t i = 0; i < report.gpus.size(); ++i) gpus += (i ? ", " : "") + one(report.gpus[i]);
    }
    if (report.usable_gpus == 0) {
      gpus += ", not usable by this mixerlab build (CPU-only LibTorch: build with CUDA, see docs/data-parallel.md)";
    } else {
      gpus += report.nccl_built_in ? ", NCCL" : ", no NCCL in this build (ranks use Gloo)";
    }
  }
  return (report.host.empty() ? std::string() : report.host + ": ") + gpus + ", " + std::to_string(report.cpu_cores) +
         " cores, " + formatGib(report.memory_gib) + " GiB memory";
}

HardwareReport probeRemoteMachine(const RemoteHost& host) {
  if (host.host.empty()) throw MixerLabError("no remote host name given", "pass --host NAME");
  std::string command = "exec " + shellQuote(host.program) + " probe --json";
  if (!host.folder.empty()) command = "cd " + shellQuote(host.folder) + " && " + command;
  std::string output;
  const int code = runCapture(sshArguments(host, command), &output);
  const auto marker = output.find(kHardwareReportMarker);
  const std::string where = (host.user.empty() ? "" : host.user + "@") + host.host;
  if (code != 0 || marker == std::string::npos) {
    throw MixerLabError("probing " + where + " failed (exit " + std::to_string(code) + "): " + trim(output),
                        "check that `ssh " + where + "` logs in with a key (no password) and that `" + host.program +
                            " probe --json` runs in the remote folder");
  }
  const auto json_start = output.find('{', marker);
  const auto json_end = output.rfind('}');
  if (json_start == std::string::npos || json_end == std::string::npos || json_end < json_start) {
    throw MixerLabError("the answer of " + where + " holds no hardware report: " + trim(output),
                        "run the same mixerlab version on both machines");
  }
  try {
    return hardwareReportFromJson(nlohmann::json::parse(output.substr(json_start, json_end - json_start + 1)));
  } catch (const nlohmann::json::parse_error& e) {
    throw MixerLabError("the hardware report of " + where + " is not JSON: " + e.what(),
                        "run the same mixerlab version on both machines");
  }
}

}  // namespace mixerlab
