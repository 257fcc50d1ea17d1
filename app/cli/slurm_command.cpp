// `mixerlab slurm submit|status|stop`: a training run as a Slurm batch job
// (core/distributed/slurm_job.h). submit writes <run>/slurm/job.sh (one srun of `mixerlab train`
// over nodes x tasks-per-node ranks, which read their places from Slurm's variables), submits it
// with sbatch and records the job id; status says where the job stands with Slurm's reason and what
// the run's status.json says; stop asks the ranks to checkpoint and stop (scancel --signal=TERM).
#include <cstdio>
#include <filesystem>
#include <memory>

#include <CLI/CLI.hpp>

#include "app/cli/cli_commands.h"
#include "app/cli/number_checks.h"
#include "core/config/project_config.h"
#include "core/distributed/slurm_job.h"
#include "core/runs/run_status.h"
#include "core/util/error.h"
#include "core/util/folder_name.h"
#include "core/util/subprocess.h"

namespace mixerlab::cli {
namespace fs = std::filesystem;

namespace {

struct SlurmSubmitOptions {
  std::string project, run, run_id, out;
  int64_t max_steps = 0;
  bool resume = false;
  SlurmJobSettings settings;
};

// The run folder `mixerlab train` would use for the same options.
fs::path runFolder(const ProjectConfig& project, const SlurmSubmitOptions& o) {
  const fs::path runs = o.out.empty() ? project.defaultRunsDirectory() : fs::absolute(o.out);
  return runs / (o.run_id.empty() ? o.run : o.run_id);
}

int submit(const SlurmSubmitOptions& o) {
  if (!o.run_id.empty()) requireFolderName(o.run_id, "--run-id");
  const ProjectConfig project = loadProject(fs::absolute(o.project));
  project.run(o.run);  // an unknown run is refused here, not in the job
  SlurmJobCommand command;
  command.run_dir = runFolder(project, o);
  command.work_dir = project.directory();
  command.job_name = "mixerlab-" + (o.run_id.empty() ? o.run : o.run_id);
  command.argv = {currentExecutable(), "train", project.file.string(), "--run", o.run};
  command.argv.insert(command.argv.end(), {"--run-id", command.run_dir.filename().string()});
  command.argv.insert(command.argv.end(), {"--out", command.run_dir.parent_path().string()});
  if (o.max_steps > 0) command.argv.insert(command.argv.end(), {"--max-steps", std::to_string(o.max_steps)});
  if (o.resume) command.argv.push_back("--resume");
  const std::string job_id = submitSlurmJob(o.settings, command);
  std::printf("submitted job %s: %d node(s) x %d rank(s); script %s\n", job_id.c_str(), o.settings.nodes,
              o.settings.tasks_per_node, slurmScriptFile(command.run_dir).string().c_str());
  std::printf("watch it with: mixerlab slurm status %s\n", command.run_dir.string().c_str());
  return 0;
}

std::string requireJob(const fs::path& run_dir) {
  const auto job = recordedSlurmJob(run_dir);
  if (!job) {
    throw MixerLabError(run_dir.string() + " holds no Slurm job (no " + slurmJobFile(run_dir).string() + ")",
                        "submit it with mixerlab slurm submit, or give the run folder the job wrote");
  }
  return *job;
}

int status(const fs::path& run_dir) {
  const std::string job = requireJob(run_dir);
  const SlurmJobState state = querySlurmJob(job);
  if (state.known()) {
    std::printf("job %s: %s", job.c_str(), state.state.c_str());
    if (!state.reason.empty() && state.reason != "None") std::printf(" (reason: %s)", state.reason.c_str());
    std::printf("\n");
  } else {
    std::printf("job %s: no longer known to Slurm (it ended a while ago)\n", job.c_str());
  }
  if (const auto run = readRunStatus(run_dir)) {
    std::printf("run: %s at step %lld%s%s\n", runStateName(run->state).c_str(), static_cast<long long>(run->step),
                run->reason.empty() ? "" : ": ", run->reason.c_str());
  }
  return 0;
}

}  // namespace

void addSlurmCommands(CLI::App& app, Action& action) {
  auto* slurm = app.add_subcommand("slurm", "Train a run as a Slurm batch job: submit, status, stop");
  slurm->require_subcommand(1);

  auto o = std::make_shared<SlurmSubmitOptions>();
  auto* sub = slurm->add_subcommand("submit", "Write the run's batch script and submit it with sbatch");
  sub->add_option("project", o->project, "Project file")->required();
  sub->add_option("--run", o->run, "Run name in the project")->required();
  sub->add_option("--run-id", o->run_id, "Folder name of the run directory (default: the run name)");
  sub->add_option("--out", o->out, "Runs folder (default: the project's runs/)");
  sub->add_option("--max-steps", o->max_steps, "Train this many steps (default: the run's budget)")
      ->check(positiveNumber());
  sub->add_flag("--resume", o->resume, "Continue the run from its last checkpoint");
  sub->add_option("--partition", o->settings.partition, "Slurm partition (default: the cluster's)");
  sub->add_option("--account", o->settings.account, "Slurm account to charge");
  sub->add_option("--constraint", o->settings.constraint, "Node features the job needs");
  sub->add_option("--time", o->settings.time_limit, "Time limit: minutes, H:MM:SS or D-HH");
  sub->add_option("--nodes", o->settings.nodes, "Nodes")->check(positiveNumber());
  sub->add_option("--tasks-per-node", o->settings.tasks_per_node, "Data-parallel ranks per node (one per GPU)")
      ->check(positiveNumber());
  sub->add_option("--gpus-per-node", o->settings.gpus_per_node, "GPUs per node")->check(nonNegativeNumber());
  sub->add_option("--cpus-per-task", o->settings.cpus_per_task, "CPUs per rank (0: Slurm's default)")
      ->check(nonNegativeNumber());
  sub->add_option("--stop-warning-s", o->settings.stop_warning_s,
                  "SIGTERM the ranks this long before the time limit, so they checkpoint and stop")
      ->check(nonNegativeNumber())
      ->capture_default_str();
  sub->add_option("--sbatch", o->settings.extra_directives, "A further #SBATCH option, e.g. --qos=long (repeatable)");
  sub->footer(
      "Example: mixerlab slurm submit projects/demo/project.json --run mixer --nodes 2 --tasks-per-node 4 "
      "--gpus-per-node 4 --time 24:00:00");
  sub->callback([&action, o] { action = [o]() { return submit(*o); }; });

  auto run_dir = std::make_shared<std::string>();
  auto* stat = slurm->add_subcommand("status", "Where a run's Slurm job stands, with Slurm's reason");
  stat->add_option("run_dir", *run_dir, "The run folder")->required();
  stat->callback([&action, run_dir] { action = [run_dir]() { return status(*run_dir); }; });

  auto stop_dir = std::make_shared<std::string>();
  auto* stop = slurm->add_subcommand("stop", "Ask the job's ranks to checkpoint and stop (scancel --signal=TERM)");
  stop->add_option("run_dir", *stop_dir, "The run folder")->required();
  stop->callback([&action, stop_dir] {
    action = [stop_dir]() {
      const std::string job = requireJob(*stop_dir);
      stopSlurmJob(job);
      std::printf("asked job %s to checkpoint and stop\n", job.c_str());
      return 0;
    };
  });
}

}  // namespace mixerlab::cli
