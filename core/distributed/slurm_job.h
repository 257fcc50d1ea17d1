// A training run as a Slurm batch job: the settings a cluster asks for (partition, nodes, ranks and
// GPUs per node, CPUs, time limit, account, constraint, further #SBATCH lines), the batch script
// MixerLab writes into the run folder (<run>/slurm/job.sh: one `srun` of `mixerlab train` whose
// ranks read their places from Slurm's variables, core/distributed/distributed_env.h), the job
// record beside it (<run>/slurm/job.json: the job id), and the three calls to Slurm: sbatch to
// submit, squeue / scontrol to see where the job stands, scancel to stop it gracefully (SIGTERM to
// its ranks: the trainer checkpoints and stops). Slurm's own messages are passed on as they are.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace mixerlab {

struct SlurmJobSettings {
  std::string partition, account, constraint;  // empty: the cluster's default / none
  std::string time_limit;                      // Slurm's forms ("30", "4:00:00", "1-00:00:00"); empty: default
  int nodes = 1;
  int tasks_per_node = 1;  // data-parallel ranks per node (one per GPU)
  int gpus_per_node = 0;
  int cpus_per_task = 0;  // 0: Slurm's default
  // The ranks get SIGTERM this long before the time limit, so the trainer checkpoints and stops
  // before Slurm kills the job.
  int stop_warning_s = 120;
  std::vector<std::string> extra_directives;  // further options, each written as "#SBATCH <option>"
};

// Throws MixerLabError naming the setting and its fix when one cannot be written into a script
// (a count below 1, a value with whitespace or a newline, a time limit in no form Slurm reads).
void validateSlurmSettings(const SlurmJobSettings& settings);

struct SlurmJobCommand {
  std::string job_name;
  std::filesystem::path run_dir;   // the job's output and the script go to <run_dir>/slurm/
  std::filesystem::path work_dir;  // where the ranks start (the project's folder)
  std::vector<std::string> argv;   // the program every rank runs, then its arguments
};

// The batch script's text. Throws like validateSlurmSettings, and when a path holds whitespace or
// '%' (sbatch would split or expand it).
std::string slurmBatchScript(const SlurmJobSettings& settings, const SlurmJobCommand& command);

// Where a run's Slurm files are.
std::filesystem::path slurmFolder(const std::filesystem::path& run_dir);
std::filesystem::path slurmScriptFile(const std::filesystem::path& run_dir);
std::filesystem::path slurmJobFile(const std::filesystem::path& run_dir);

// Writes the script and submits it with sbatch; writes <run>/slurm/job.json with the job id and
// returns the id. Throws MixerLabError with sbatch's own message when Slurm refuses the job (a bad
// partition or account), or naming sbatch when it cannot be run; the script stays for a look,
// job.json is not written.
std::string submitSlurmJob(const SlurmJobSettings& settings, const SlurmJobCommand& command);

// The job id job.json records; nullopt when the run was never submitted to Slurm.
std::optional<std::string> recordedSlurmJob(const std::filesystem::path& run_dir);

// Where a job stands as Slurm says it: PENDING, RUNNING, COMPLETING, COMPLETED, FAILED,
// CANCELLED, TIMEOUT, PREEMPTED, ..., with Slurm's reason (Priority, Resources, None, ...).
struct SlurmJobState {
  std::string state, reason;
  bool known() const { return !state.empty(); }
};

// "PENDING|Priority" (squeue -h -o "%T|%r"); an empty state when the line is empty.
SlurmJobState parseSqueueLine(const std::string& line);
// The JobState= and Reason= of `scontrol show job -o ID`; an empty state when neither is there.
SlurmJobState parseScontrolJob(const std::string& text);

// squeue, then scontrol for a job that has left the queue; an unknown state when Slurm no longer
// knows the job (it ended long enough ago). Throws naming squeue when it cannot be run.
SlurmJobState querySlurmJob(const std::string& job_id);

// scancel --signal=TERM: the job's ranks checkpoint and stop. Throws with scancel's message.
void stopSlurmJob(const std::string& job_id);

}  // namespace mixerlab
