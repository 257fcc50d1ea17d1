// `mixerlab reproduce`: runs the suite that tests the research's claims at a chosen scale and
// writes report.html / report.json (core/reproduce). Progress goes to stderr as one line per step
// plus a percentage; Ctrl-C finishes the current checkpoint and stops, and --resume continues.
// --plan prints what a scale runs and how long it takes on this machine (or --hardware), without
// training. The GUI's Run > Reproduce paper runs this command as a child process and reads its lines.
#include <unistd.h>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <iostream>

#include <CLI/CLI.hpp>

#include "app/cli/cli_commands.h"
#include "core/reproduce/plan_estimate.h"
#include "core/reproduce/reproduce_report.h"
#include "core/reproduce/reproduce_runner.h"
#include "core/runs/demo_project.h"

namespace mixerlab::cli {
namespace fs = std::filesystem;

namespace {
std::atomic<bool> g_reproduce_stop{false};

void onReproduceStop(int) {
  g_reproduce_stop.store(true);
  std::signal(SIGINT, SIG_DFL);
}

struct ReproduceOptions {
  std::string scale = "tiny";
  std::string out;
  std::string projects;
  bool resume = false;
  bool report_only = false;
  bool plan_only = false;
  bool scale_given = false;
  std::string hardware;
};

// core/runs/demo_project.h says where; the installed location names the folder when none is found
// (the error then says it is missing and to pass --projects).
fs::path defaultProjectsFolder() {
  const fs::path exe = fs::read_symlink("/proc/self/exe");
  const fs::path found = bundledProjectsFolder(exe);
  return found.empty() ? (exe.parent_path() / ".." / "share" / "mixerlab" / "projects").lexically_normal() : found;
}

// Every scale's plan (or --scale's) with its estimated time on this machine or --hardware.
int planCommand(const ReproduceOptions& o) {
  const fs::path projects = o.projects.empty() ? defaultProjectsFolder() : fs::path(o.projects);
  const HardwareProfile hardware = o.hardware.empty() ? profileOf(probeThisMachine()) : hardwareProfile(o.hardware);
  bool first = true;
  for (const ReproduceScale scale : kReproduceScales) {
    if (o.scale_given && scale != parseScale(o.scale)) continue;
    const ReproducePlan plan = planReproduction(scale, projects);
    std::cout << (first ? "" : "\n") << formatPlan(plan, estimatePlan(plan, hardware));
    first = false;
  }
  return 0;
}

int reproduceCommand(const ReproduceOptions& o) {
  if (o.plan_only) return planCommand(o);
  const fs::path out = o.out.empty() ? fs::path("reproduce-" + o.scale) : fs::path(o.out);
  if (o.report_only) {
    const ReportFiles files = writeReproduceReport(out);
    std::cout << "report: " << fs::absolute(files.html).string() << "\n";
    return 0;
  }
  ReproduceRequest request;
  request.scale = parseScale(o.scale);
  request.projects_dir = o.projects.empty() ? defaultProjectsFolder() : fs::path(o.projects);
  request.out_dir = fs::absolute(out);
  request.resume = o.resume;
  request.stop_requested = &g_reproduce_stop;
  const bool terminal = isatty(STDERR_FILENO) != 0;
  int last_percent = -1;
  request.on_log = [&](const std::string& line) {
    if (terminal && last_percent >= 0) std::fputs("\n", stderr);
    last_percent = -1;
    std::fprintf(stderr, "%s\n", line.c_str());
  };
  request.on_progress = [&](const ReproduceProgress& p) {
    // Every percent on a terminal; in a log (or the GUI's pipe) one line per tenth of a step.
    const int percent = static_cast<int>(p.fraction * 100);
    const int shown = terminal ? percent : percent / 10 * 10;
    if (shown == last_percent) return;
    last_percent = shown;
    std::fprintf(stderr, terminal ? "\r  %3d%% of step %d/%d  " : "  %d%% of step %d/%d\n", shown, p.step,
                 p.step_count);
  };
  std::signal(SIGINT, onReproduceStop);
  std::signal(SIGTERM, onReproduceStop);
  const ReproduceOutcome outcome = runReproduction(request);
  if (!outcome.finished) {
    std::cerr << "stopped; continue with: mixerlab reproduce --scale " << o.scale << " --out " << out.string()
              << " --resume\n";
    return 0;
  }
  std::cout << "report: " << outcome.report_html.string() << "\n"
            << "        " << outcome.report_json.string() << "\n"
            << "suite time: " << static_cast<long long>(outcome.wall_s) << " s\n";
  return 0;
}
}  // namespace

void addReproduceCommand(CLI::App& app, Action& action) {
  auto o = std::make_shared<ReproduceOptions>();
  auto* cmd = app.add_subcommand(
      "reproduce",
      "Test the research's claims (docs/reproduce.md: the mixer against Llama with 32 and 4 heads, GPT and the "
      "Transfixer, inversion, retrieval, blog II's autoencoders, bidirectional models and InfoNCE) with one suite "
      "of runs, and write report.html and report.json beside the paper's numbers");
  auto* scale = cmd->add_option("--scale", o->scale,
                                "tiny (a pipeline check, about 40 min on 2 CPU cores), small (hours on a CPU), gpu "
                                "(about an hour on one GPU, TinyStories at T=512) or paper (the research's presets)")
                    ->check(CLI::IsMember({"tiny", "small", "gpu", "paper"}));
  cmd->add_option("--out", o->out, "Folder for the runs and the report (default: reproduce-<scale>)");
  cmd->add_flag("--resume", o->resume, "Continue the reproduction in --out (finished steps are skipped)");
  cmd->add_option("--projects", o->projects,
                  "Folder holding the bundled demo/ and paper/ projects (default: ./projects, else the installed "
                  "share/mixerlab/projects)");
  cmd->add_flag("--report-only", o->report_only, "Rebuild report.html and report.json from what --out holds");
  cmd->add_flag("--plan", o->plan_only,
                "Print the runs, budgets, data and estimated time of --scale (every scale without it), train nothing");
  cmd->add_option("--hardware", o->hardware,
                  "Estimate --plan times for this machine instead of the detected one: cpu-N, rtx3060, v100, 4xv100, "
                  "a100, h100 or h200");
  cmd->callback([o, scale, &action]() {
    o->scale_given = scale->count() > 0;
    action = [o]() { return reproduceCommand(*o); };
  });
}

}  // namespace mixerlab::cli
