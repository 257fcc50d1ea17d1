// Slurm batch jobs of training runs (see slurm_job.h).
#include "core/distributed/slurm_job.h"

#include <cctype>
#include <regex>

#include <nlohmann/json.hpp>

#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/shell_quote.h"
#include "core/util/subprocess.h"

namespace mixerlab {

namespace fs = std::filesystem;

namespace {

constexpr double kSlurmCallTimeoutS = 60;  // a controller that does not answer in a minute is down

void requireCount(int value, int least, const std::string& name) {
  if (value < least) {
    throw MixerLabError("Slurm setting " + name + " is " + std::to_string(value) + ", below " + std::to_string(least),
                        "give " + name + " >= " + std::to_string(least));
  }
}

// One word of an #SBATCH line: no whitespace (sbatch would split it), nothing that ends the line.
void requireWord(const std::string& value, const std::string& name) {
  if (value.find_first_of(" \t\r\n") != std::string::npos) {
    throw MixerLabError("Slurm setting " + name + " \"" + value + "\" holds whitespace",
                        "give " + name + " as one word, as sbatch takes it");
  }
}

void requirePlainPath(const fs::path& path, const std::string& what) {
  if (path.string().find_first_of(" \t\r\n%") != std::string::npos) {
    throw MixerLabError(
        what + " " + path.string() + " holds whitespace or '%', which sbatch's #SBATCH lines cannot carry",
        "move the project to a folder whose path has neither");
  }
}

CapturedRun runSlurmTool(const std::vector<std::string>& argv) {
  SubprocessSpec spec = commandSpec(argv);
  spec.stdout_to = ChildOutput::kPipe;
  spec.stderr_to = ChildOutput::kPipe;
  try {
    return runToEnd(spec, kSlurmCallTimeoutS);
  } catch (const MixerLabError& e) {
    throw MixerLabError("cannot run Slurm's " + argv.front() + ": " + e.problem(),
                        "install Slurm's client commands (Debian: slurm-client) or run this on the cluster's "
                        "login node");
  }
}

std::string trimmed(std::string text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  size_t start = 0;
  while (start < text.size() && std::isspace(static_cast<unsigned char>(text[start]))) ++start;
  return text.substr(start);
}

std::string slurmMessage(const CapturedRun& run) {
  const std::string said = trimmed(run.err.empty() ? run.out : run.err);
  if (run.timed_out) return "no answer within " + std::to_string(static_cast<int>(kSlurmCallTimeoutS)) + " s";
  return said.empty() ? describeExit(run) : said;
}

// The value after "Key=" in scontrol's one-line output ("JobState=PENDING Reason=Priority ...").
std::string scontrolField(const std::string& text, const std::string& key) {
  const std::regex pattern("(^|\\s)" + key + "=(\\S*)");
  std::smatch match;
  return std::regex_search(text, match, pattern) ? match[2].str() : std::string();
}

}  // namespace

void validateSlurmSettings(const SlurmJobSettings& s) {
  requireCount(s.nodes, 1, "nodes");
  requireCount(s.tasks_per_node, 1, "tasks per node");
  requireCount(s.gpus_per_node, 0, "GPUs per node");
  requireCount(s.cpus_per_task, 0, "CPUs per task");
  requireCount(s.stop_warning_s, 0, "stop warning (s)");
  requireWord(s.partition, "partition");
  requireWord(s.account, "account");
  requireWord(s.constraint, "constraint");
  static const std::regex time_forms(
      "\\d+|\\d+:\\d{1,2}|\\d+:\\d{1,2}:\\d{1,2}|\\d+-\\d+|\\d+-\\d+:\\d{1,2}|\\d+-\\d+:\\d{1,2}:\\d{1,2}|UNLIMITED|"
      "infinite");
  if (!s.time_limit.empty() && !std::regex_match(s.time_limit, time_forms)) {
    throw MixerLabError("Slurm time limit \"" + s.time_limit + "\" is in no form sbatch reads",
                        "give minutes (90), hours:minutes:seconds (4:00:00) or days-hours (1-12)");
  }
  for (const std::string& line : s.extra_directives) {
    if (line.find_first_of("\r\n") != std::string::npos || trimmed(line).empty()) {
      throw MixerLabError("extra #SBATCH line \"" + line + "\" is empty or spans lines",
                          "give each further option on its own, e.g. --qos=long");
    }
  }
}

fs::path slurmFolder(const fs::path& run_dir) { return run_dir / "slurm"; }
fs::path slurmScriptFile(const fs::path& run_dir) { return slurmFolder(run_dir) / "job.sh"; }
fs::path slurmJobFile(const fs::path& run_dir) { return slurmFolder(run_dir) / "job.json"; }

std::string slurmBatchScript(const SlurmJobSettings& s, const SlurmJobCommand& command) {
  validateSlurmSettings(s);
  requireWord(command.job_name, "job name");
  requirePlainPath(command.run_dir, "run folder");
  requirePlainPath(command.work_dir, "project folder");
  if (command.argv.empty()) throw MixerLabError("no command for the Slurm job", "give the mixerlab train command");
  const fs::path out = slurmFolder(command.run_dir);
  std::string script = "#!/bin/bash\n";
  script += "# MixerLab's batch script for the run in " + command.run_dir.string() + "\n# " + std::to_string(s.nodes) +
            " node(s) x " + std::to_string(s.tasks_per_node) +
            " rank(s): each reads its place from SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID and the job's\n"
            "# first node (no torchrun); SIGTERM (scancel, or the time limit's warning) checkpoints and stops.\n";
  const auto directive = [&script](const std::string& option) { script += "#SBATCH " + option + "\n"; };
  directive("--job-name=" + command.job_name);
  directive("--nodes=" + std::to_string(s.nodes));
  directive("--ntasks-per-node=" + std::to_string(s.tasks_per_node));
  if (s.gpus_per_node > 0) directive("--gpus-per-node=" + std::to_string(s.gpus_per_node));
  if (s.cpus_per_task > 0) directive("--cpus-per-task=" + std::to_string(s.cpus_per_task));
  if (!s.partition.empty()) directive("--partition=" + s.partition);
  if (!s.account.empty()) directive("--account=" + s.account);
  if (!s.constraint.empty()) directive("--constraint=" + s.constraint);
  if (!s.time_limit.empty()) directive("--time=" + s.time_limit);
  if (s.stop_warning_s > 0) directive("--signal=TERM@" + std::to_string(s.stop_warning_s));
  directive("--chdir=" + command.work_dir.string());
  directive("--output=" + (out / "job-%j.out").string());
  directive("--error=" + (out / "job-%j.err").string());
  for (const std::string& line : s.extra_directives) directive(trimmed(line));
  script += "\nexec srun --kill-on-bad-exit=1";
  for (const std::string& word : command.argv) script += " " + shellQuote(word);
  return script + "\n";
}

std::string submitSlurmJob(const SlurmJobSettings& settings, const SlurmJobCommand& command) {
  const std::string script = slurmBatchScript(settings, command);
  fs::create_directories(slurmFolder(command.run_dir));
  writeFileAtomic(slurmScriptFile(command.run_dir), script);
  const CapturedRun run = runSlurmTool({"sbatch", "--parsable", slurmScriptFile(command.run_dir).string()});
  if (!run.succeeded()) {
    throw MixerLabError("Slurm refused the job of " + command.run_dir.string() + ": " + slurmMessage(run),
                        "fix the setting Slurm names (partition, account, time limit, ...) and submit again; the "
                        "script is in " +
                            slurmScriptFile(command.run_dir).string());
  }
  // --parsable prints "ID" or "ID;cluster".
  const std::string printed = trimmed(run.out);
  const std::string job_id = printed.substr(0, printed.find(';'));
  if (job_id.empty() || job_id.find_first_not_of("0123456789_") != std::string::npos) {
    throw MixerLabError("sbatch printed no job id (\"" + printed + "\")", "check the cluster with squeue");
  }
  const nlohmann::json record = {{"job_id", job_id},
                                 {"script", slurmScriptFile(command.run_dir).string()},
                                 {"nodes", settings.nodes},
                                 {"tasks_per_node", settings.tasks_per_node},
                                 {"partition", settings.partition}};
  writeFileAtomic(slurmJobFile(command.run_dir), record.dump(2) + "\n");
  return job_id;
}

std::optional<std::string> recordedSlurmJob(const fs::path& run_dir) {
  if (!fs::exists(slurmJobFile(run_dir))) return std::nullopt;
  try {
    return nlohmann::json::parse(readFile(slurmJobFile(run_dir))).at("job_id").get<std::string>();
  } catch (const std::exception& e) {
    throw MixerLabError(slurmJobFile(run_dir).string() + " is not a job record MixerLab wrote: " + e.what(),
                        "remove it if the run is no Slurm job");
  }
}

SlurmJobState parseSqueueLine(const std::string& line) {
  const std::string text = trimmed(line.substr(0, line.find('\n')));
  if (text.empty()) return {};
  const size_t bar = text.find('|');
  return {text.substr(0, bar), bar == std::string::npos ? std::string() : text.substr(bar + 1)};
}

SlurmJobState parseScontrolJob(const std::string& text) {
  return {scontrolField(text, "JobState"), scontrolField(text, "Reason")};
}

SlurmJobState querySlurmJob(const std::string& job_id) {
  const CapturedRun queued = runSlurmTool({"squeue", "-h", "-j", job_id, "-o", "%T|%r"});
  if (queued.succeeded()) {
    const SlurmJobState state = parseSqueueLine(queued.out);
    if (state.known()) return state;
  }
  const CapturedRun shown = runSlurmTool({"scontrol", "show", "job", "-o", job_id});
  return shown.succeeded() ? parseScontrolJob(shown.out) : SlurmJobState{};
}

void stopSlurmJob(const std::string& job_id) {
  const CapturedRun run = runSlurmTool({"scancel", "--signal=TERM", job_id});
  if (!run.succeeded()) {
    throw MixerLabError("scancel could not stop job " + job_id + ": " + slurmMessage(run),
                        "check the job with squeue -j " + job_id);
  }
}

}  // namespace mixerlab
