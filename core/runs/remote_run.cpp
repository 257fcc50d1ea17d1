// Remote training over SSH with a local mirror (see remote_run.h).
#include "core/runs/remote_run.h"

#include <unistd.h>

#include <chrono>
#include <optional>
#include <thread>

#include "core/runs/run_directory.h"
#include "core/runs/run_lock.h"
#include "core/runs/run_status.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/folder_name.h"
#include "core/util/subprocess.h"

namespace mixerlab {
namespace fs = std::filesystem;

std::string shellQuote(const std::string& word) {
  std::string out = "'";
  for (const char c : word) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

std::vector<std::string> sshArguments(const RemoteHost& host, const std::string& remote_command) {
  std::vector<std::string> args{"ssh", "-o", "BatchMode=yes", "-p", std::to_string(host.port)};
  if (!host.identity_file.empty()) args.insert(args.end(), {"-i", host.identity_file});
  for (const std::string& option : host.ssh_options) args.insert(args.end(), {"-o", option});
  args.push_back(host.user.empty() ? host.host : host.user + "@" + host.host);
  args.push_back("--");
  args.push_back(remote_command);
  return args;
}

std::string remoteTrainCommand(const RemoteHost& host, const std::vector<std::string>& train_arguments) {
  std::string command = "cd " + shellQuote(host.folder) + " && exec " + shellQuote(host.program);
  if (host.nproc > 1) command += " launch --nproc " + std::to_string(host.nproc) + " --";
  for (const std::string& word : train_arguments) command += " " + shellQuote(word);
  return command + " --out runs";
}

namespace {

constexpr const char* kMarker = "@@mixerlab-section@@";

struct Mirror {
  const RemoteRunRequest& request;
  std::string remote_run_dir;  // relative to the remote folder
  uint64_t metrics_offset = 0;
  std::optional<RunStatus> remote_status;

  // One poll: the metrics' size and new bytes, status.json, run.json and the log's tail. False when
  // ssh failed (the next poll tries again).
  bool poll() {
    const std::string cd =
        "cd " + shellQuote(request.host.folder) + " && cd " + shellQuote(remote_run_dir) + " 2>/dev/null || exit 0; ";
    const std::string m = std::string("printf '\\n") + kMarker + "\\n'; ";
    const std::string command = cd + "wc -c < metrics.jsonl 2>/dev/null; " + m + "tail -c +" +
                                std::to_string(metrics_offset + 1) + " metrics.jsonl 2>/dev/null; " + m +
                                "cat status.json 2>/dev/null; " + m + "cat run.json 2>/dev/null; " + m +
                                "tail -c 65536 log.txt 2>/dev/null";
    std::string output;
    if (runCapture(sshArguments(request.host, command), &output) != 0) return false;
    std::vector<std::string> sections;
    const std::string separator = std::string("\n") + kMarker + "\n";
    size_t start = 0;
    while (true) {
      const size_t at = output.find(separator, start);
      sections.push_back(output.substr(start, at == std::string::npos ? std::string::npos : at - start));
      if (at == std::string::npos) break;
      start = at + separator.size();
    }
    if (sections.size() < 5) return true;  // the run folder does not exist yet
    const fs::path local = request.local_run_dir;
    uint64_t remote_size = 0;
    try {
      remote_size = std::stoull(sections[0]);
    } catch (const std::exception&) {
      remote_size = 0;
    }
    if (remote_size < metrics_offset) {  // rewritten remotely (a resume truncated it): fetch it whole
      metrics_offset = 0;
      writeFileAtomic(RunPaths{local}.metrics(), "");
      return poll();
    }
    const std::string& fresh = sections[1];
    const size_t complete = fresh.rfind('\n') == std::string::npos ? 0 : fresh.rfind('\n') + 1;
    if (complete > 0) {
      std::string text = metrics_offset == 0 ? std::string() : readFile(RunPaths{local}.metrics());
      text += fresh.substr(0, complete);
      writeFileAtomic(RunPaths{local}.metrics(), text);
      metrics_offset += complete;
    }
    if (!sections[3].empty()) writeFileAtomic(local / "run.json", sections[3]);
    if (!sections[4].empty()) writeFileAtomic(RunPaths{local}.log(), sections[4]);
    if (!sections[2].empty()) {
      writeFileAtomic(local / "remote-status.json", sections[2]);  // the remote's own record, as sent
      remote_status = readRunStatusFile(local / "remote-status.json");
      if (remote_status) writeLocalStatus(remote_status->state, remote_status->reason);
    }
    return true;
  }

  // The local status: the remote state, with this mirror as the process (Stop signals it).
  void writeLocalStatus(RunState state, const std::string& reason) {
    RunStatus local;
    local.state = state;
    local.reason = reason;
    local.step = remote_status ? remote_status->step : 0;
    local.tokens = remote_status ? remote_status->tokens : 0;
    local.pid = ::getpid();
    local.host = hostName();
    writeRunStatus(request.local_run_dir, local);
  }
};

}  // namespace

int runRemoteTraining(const RemoteRunRequest& request) {
  if (request.host.host.empty()) throw MixerLabError("remote: no host given", "pass --host NAME");
  requireFolderName(request.run_id, "run name");
  const RunLock lock(request.local_run_dir);  // one writer of the local mirror
  Mirror mirror{request, "runs/" + request.run_id, 0, std::nullopt};
  mirror.writeLocalStatus(RunState::Pending, "starting on " + request.host.host);
  const fs::path output_file = request.local_run_dir / "remote-output.txt";
  const std::string command = remoteTrainCommand(request.host, request.train_arguments);
  // ssh with stdout and stderr appended to remote-output.txt, stdin from /dev/null (no prompt).
  SubprocessSpec ssh = commandSpec(sshArguments(request.host, command));
  ssh.stdout_to = ChildOutput::kAppendToFile;
  ssh.stdout_file = output_file;
  ssh.stderr_to = ChildOutput::kSameAsStdout;
  Subprocess job;
  try {
    job = spawn(ssh);
  } catch (const MixerLabError& e) {
    mirror.writeLocalStatus(RunState::Failed, e.what());  // the mirror never stays "starting"
    throw;
  }
  bool stop_sent = false;
  ChildExit job_exit;
  while (true) {
    mirror.poll();
    if (const std::optional<ChildExit> ended = job.tryWait()) {
      job_exit = *ended;
      break;
    }
    if (request.stop_requested && request.stop_requested->load() && !stop_sent && mirror.remote_status &&
        mirror.remote_status->pid > 0) {
      std::string ignored;
      runCapture(sshArguments(request.host, "kill -TERM " + std::to_string(mirror.remote_status->pid)), &ignored);
      stop_sent = true;
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(request.poll_s));
  }
  // The final state, whatever the load: fetch until the remote status is final and a fetch brings
  // no new metrics (the remote files may trail the ssh session's end a little).
  for (int attempt = 0; attempt < 40; ++attempt) {
    const uint64_t before = mirror.metrics_offset;
    const bool fetched = mirror.poll();
    const bool final_state = mirror.remote_status && mirror.remote_status->state != RunState::Running &&
                             mirror.remote_status->state != RunState::Pending;
    if (fetched && final_state && mirror.metrics_offset == before && attempt > 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  const int exit_code = job_exit.shellCode();
  if (mirror.remote_status && mirror.remote_status->state != RunState::Running &&
      mirror.remote_status->state != RunState::Pending) {
    mirror.writeLocalStatus(mirror.remote_status->state, mirror.remote_status->reason);
  } else {
    std::string output = fs::exists(output_file) ? readFile(output_file) : std::string();
    if (output.size() > 600) output = output.substr(output.size() - 600);
    mirror.writeLocalStatus(RunState::Failed, "the remote job on " + request.host.host + " ended (exit " +
                                                  std::to_string(exit_code) + ") without a final status: " + output);
  }
  return exit_code;
}

}  // namespace mixerlab
