// `mixerlab train` and `mixerlab demo`: run the trainer as this process, with a progress display
// and a graceful stop (checkpoint + status "stopped") on SIGINT/SIGTERM.
#include <csignal>
#include <cstdlib>
#include <iostream>

#include <CLI/CLI.hpp>

#include "app/cli/cli_commands.h"
#include "app/cli/number_checks.h"
#include "app/cli/progress_bar.h"
#include "app/cli/stop_signal.h"
#include "core/config/project_config.h"
#include "core/distributed/distributed_env.h"
#include "core/distributed/rank_join.h"
#include "core/runs/demo_project.h"
#include "core/runs/run_directory.h"
#include "core/train/device.h"
#include "core/train/trainer.h"
#include "core/util/folder_name.h"

namespace mixerlab::cli {
namespace fs = std::filesystem;

namespace {
struct TrainOptions {
  std::string project;
  std::string run;
  std::string run_id;
  std::string out;
  int64_t max_steps = 0;
  int64_t threads = -1;
  std::string device;
  std::string precision;
  bool resume = false;
  std::string fork_from;  // checkpoint folder to start a new run from
};

int trainOne(const ProjectConfig& project, const TrainOptions& o) {
  if (!o.run_id.empty()) requireFolderName(o.run_id, "--run-id");  // "../x" would leave the runs folder
  RunConfig run = project.run(o.run);
  if (o.max_steps > 0) {
    run.train.max_steps = o.max_steps;
    run.train.max_tokens = 0;
    run.train.max_wall_s = 0;
  }
  if (o.threads >= 0) run.train.threads = o.threads;
  if (!o.device.empty()) run.train.device = o.device;
  if (!o.precision.empty()) run.train.precision = o.precision;
  const fs::path runs_dir = o.out.empty() ? project.defaultRunsDirectory() : fs::path(o.out);
  TrainRequest request;
  request.project = &project;
  request.run = run;
  request.run_dir = runs_dir / (o.run_id.empty() ? o.run : o.run_id);
  request.resume = o.resume;
  request.fork_from = o.fork_from;
  ProgressDisplay display;
  request.on_log = [&](const std::string& line) { display.line(line); };
  request.on_progress = [&](const TrainProgress& p) { display.update(p); };
  request.stop_requested = &stopRequested();
  installStopSignalHandlers();
  // Started by `mixerlab launch`, torchrun or srun: join the data-parallel job first.
  std::unique_ptr<ProcessGroup> group;
  if (auto joined = joinFromEnvironment(request.run.train.device, cudaDeviceCount())) {
    request.run.train.threads = rankTrainThreads(o.threads >= 0 ? std::optional<int64_t>(o.threads) : std::nullopt,
                                                 request.run.train.threads, joined->cpu_threads);
    request.run.train.device = joined->device;
    group = std::move(joined->group);
    request.process_group = group.get();
    if (!joined->env.isWriter()) {  // rank 0 speaks for the job
      request.on_log = nullptr;
      request.on_progress = nullptr;
    }
  }
  if (!group || group->rank() == 0) display.line("run directory: " + request.run_dir.string());
  const TrainOutcome outcome = trainRun(request);
  display.finish();
  if (outcome.state == RunState::Failed) {
    std::cerr << "error: run failed at step " << outcome.step << " (why: above, and in "
              << RunPaths{request.run_dir}.log().string() << ")\n";
    return 3;
  }
  return 0;
}
}  // namespace

void addTrainCommands(CLI::App& app, Action& action) {
  auto options = std::make_shared<TrainOptions>();
  auto* train = app.add_subcommand("train", "Train one run of a project (as this process; writes runs/<run-id>/)");
  train->add_option("project", options->project, "Project file (project.json)")->required()->check(CLI::ExistingFile);
  train->add_option("--run", options->run, "Name of the run in the project")->required();
  train->add_option("--run-id", options->run_id, "Folder name of the run directory (default: the run name)");
  train->add_option("--out", options->out, "Folder that holds run directories (default: <project folder>/runs)");
  train->add_option("--max-steps", options->max_steps, "Override the budget: stop after N optimizer steps")
      ->check(positiveNumber());
  train->add_option("--threads", options->threads, "CPU threads (0 = all cores)")->check(nonNegativeNumber());
  train->add_option("--device", options->device, "cpu, cuda, cuda:N or auto")
      ->check(CLI::Validator(
          [](std::string& device) {
            return isDeviceName(device) ? std::string() : "unknown device \"" + device + "\": use " + kDeviceNames;
          },
          "DEVICE"));
  train
      ->add_option("--precision", options->precision,
                   "Override train.precision: fp32, bf16 (autocast) or fp16 (autocast with dynamic loss scaling)")
      ->check(CLI::IsMember({"fp32", "bf16", "fp16"}));
  train->add_flag("--resume", options->resume, "Continue from the run directory's latest checkpoint");
  train
      ->add_option("--fork-from", options->fork_from,
                   "Start a new run directory from this checkpoint (a checkpoints/step-N folder or a run folder); "
                   "training settings may differ, the model must match")
      ->check(CLI::ExistingDirectory)
      ->excludes("--resume");
  train->callback(
      [options, &action]() { action = [options]() { return trainOne(loadProject(options->project), *options); }; });

  auto demo_options = std::make_shared<TrainOptions>();
  auto* demo = app.add_subcommand("demo", "Train every run of a project one after another (default: the demo project)");
  // A checkout's projects/demo, else the installed package's demo (copied to a writable folder).
  const fs::path demo_project = demoProjectFile(fs::read_symlink("/proc/self/exe"));
  demo_options->project = demo_project.empty() ? "projects/demo/project.json" : demo_project.string();
  demo->add_option("project", demo_options->project, "Project file")->check(CLI::ExistingFile);
  demo->add_option("--max-steps", demo_options->max_steps, "Override each run's budget")->check(positiveNumber());
  demo->add_option("--out", demo_options->out, "Folder that holds run directories");
  demo->callback([demo_options, &action]() {
    action = [demo_options]() {
      const ProjectConfig project = loadProject(demo_options->project);
      for (const auto& run : project.runs) {
        TrainOptions o = *demo_options;
        o.run = run.name;
        o.resume = true;  // rerunning the demo continues (or skips) finished work
        std::cout << "== " << run.name << " (" << run.model.arch << ")\n";
        if (const int code = trainOne(project, o); code != 0) return code;
        if (stopRequested().load()) return 0;
      }
      return 0;
    };
  });
}

}  // namespace mixerlab::cli
