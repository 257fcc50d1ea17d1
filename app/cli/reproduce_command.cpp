// `mixerlab reproduce`: runs the suite that tests the paper's three claims at a chosen scale and
// writes report.html / report.json (core/reproduce). Progress goes to stderr as one line per step
// plus a percentage; Ctrl-C finishes the current checkpoint and stops, and --resume continues.
// The GUI's Run > Reproduce paper runs this command as a child process and reads its lines.
#include <unistd.h>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <iostream>

#include <CLI/CLI.hpp>

#include "app/cli/cli_commands.h"
#include "core/reproduce/reproduce_report.h"
#include "core/reproduce/reproduce_runner.h"

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
};

// A checkout's projects/ (the working directory's), else the installed package's share/mixerlab/projects.
fs::path defaultProjectsFolder() {
  if (fs::exists(fs::path("projects") / "paper" / "reported_numbers.json")) return fs::absolute("projects");
  return (fs::read_symlink("/proc/self/exe").parent_path() / ".." / "share" / "mixerlab" / "projects")
      .lexically_normal();
}

int reproduceCommand(const ReproduceOptions& o) {
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
      "Test the paper's three claims (equal-compute loss, inversion by layer, retrieval top-1) with one suite of "
      "runs, and write report.html and report.json beside the paper's numbers");
  cmd->add_option("--scale", o->scale,
                  "tiny (about 30 min on 2 CPU cores), small (hours on a CPU, minutes on a GPU) or paper (the "
                  "paper's 12-hour GPU runs)")
      ->check(CLI::IsMember({"tiny", "small", "paper"}));
  cmd->add_option("--out", o->out, "Folder for the runs and the report (default: reproduce-<scale>)");
  cmd->add_flag("--resume", o->resume, "Continue the reproduction in --out (finished steps are skipped)");
  cmd->add_option("--projects", o->projects,
                  "Folder holding the bundled demo/ and paper/ projects (default: ./projects, else the installed "
                  "share/mixerlab/projects)");
  cmd->add_flag("--report-only", o->report_only, "Rebuild report.html and report.json from what --out holds");
  cmd->callback([o, &action]() { action = [o]() { return reproduceCommand(*o); }; });
}

}  // namespace mixerlab::cli
