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
constexpr double kPollTimeoutS = 120;  // one poll's ssh call; a hung one is killed and the poll asked again
}  // namespace

std::string remotePollCommand(const std::string& folder, const std::string& run_dir, uint64_t metrics_offset) {
  const std::string offset = std::to_string(metrics_offset);
  const std::string m = std::string("printf '\\n") + kMarker + "\\n'; ";
  // The size is read once; exactly S - offset bytes are sent (head -c), so a line appended meanwhile
  // waits for the next poll and the parser can check the count. With standard error silenced, a
  // shell message (e.g. about a metrics log not created yet) never lands among the sections.
  return "exec 2>/dev/null; cd " + shellQuote(folder) + " && cd " + shellQuote(run_dir) + " || exit 0; " +
         "s=$(wc -c < metrics.jsonl) || s=0; s=$((${s:-0} + 0)); printf %s \"$s\"; " + m + "if [ \"$s\" -gt " + offset +
         " ]; then tail -c +" + std::to_string(metrics_offset + 1) + " metrics.jsonl | head -c $((s - " + offset +
         ")); fi; " + m + "cat status.json; " + m + "cat run.json; " + m + "tail -c 65536 log.txt; exit 0";
}

std::optional<RemotePoll> parseRemotePoll(const std::string& output, uint64_t metrics_offset) {
  RemotePoll poll;
  if (output.empty()) return poll;  // the run folder does not exist yet
  // Five sections: the log's tail is the last, so a marker inside it cannot add one.
  std::vector<std::string> sections;
  const std::string separator = std::string("\n") + kMarker + "\n";
  size_t start = 0;
  while (sections.size() < 4) {
    const size_t at = output.find(separator, start);
    if (at == std::string::npos) return std::nullopt;  // cut short
    sections.push_back(output.substr(start, at - start));
    start = at + separator.size();
  }
  sections.push_back(output.substr(start));
  const std::string& size_line = sections[0];
  if (size_line.empty() || size_line.size() > 20 || size_line.find_first_not_of("0123456789") != std::string::npos) {
    return std::nullopt;  // not the size the command prints
  }
  poll.run_folder_exists = true;
  poll.metrics_size = std::stoull(size_line);
  poll.new_metrics = sections[1];
  const uint64_t expected = poll.metrics_size > metrics_offset ? poll.metrics_size - metrics_offset : 0;
  if (poll.new_metrics.size() != expected) return std::nullopt;  // stray or missing bytes: never mirrored
  poll.status_json = sections[2];
  poll.run_json = sections[3];
  poll.log_tail = sections[4];
  return poll;
}

namespace {

struct Mirror {
  const RemoteRunRequest& request;
  std::string remote_run_dir;  // relative to the remote folder
  uint64_t metrics_offset = 0;
  std::optional<RunStatus> remote_status;

  // One poll: the metrics' size and new bytes, status.json, run.json and the log's tail. False when
  // ssh failed or its output was not as framed (the next poll tries again).
  bool poll() {
    SubprocessSpec ssh =
        commandSpec(sshArguments(request.host, remotePollCommand(request.host.folder, remote_run_dir, metrics_offset)));
    ssh.stdout_to = ChildOutput::kPipe;
    ssh.stderr_to = ChildOutput::kPipe;  // ssh's own messages stay out of the sections
    CapturedRun run;
    try {
      run = runToEnd(ssh, kPollTimeoutS);
    } catch (const MixerLabError&) {
      return false;  // ssh could not start: the next poll tries again, the job's own ssh reports it
    }
    if (run.timed_out || run.shellCode() != 0) return false;
    const std::optional<RemotePoll> fetched = parseRemotePoll(run.out, metrics_offset);
    if (!fetched) return false;
    if (!fetched->run_folder_exists) return true;
    const fs::path local = request.local_run_dir;
    if (fetched->metrics_size < metrics_offset) {  // rewritten remotely (a resume truncated it): fetch it whole
      metrics_offset = 0;
      writeFileAtomic(RunPaths{local}.metrics(), "");
      return poll();
    }
    const std::string& fresh = fetched->new_metrics;
    const size_t complete = fresh.rfind('\n') == std::string::npos ? 0 : fresh.rfind('\n') + 1;
    if (complete > 0) {
      std::string text = metrics_offset == 0 ? std::string() : readFile(RunPaths{local}.metrics());
      text += fresh.substr(0, complete);
      writeFileAtomic(RunPaths{local}.metrics(), text);
      metrics_offset += complete;
    }
    if (!fetched->run_json.empty()) writeFileAtomic(local / "run.json", fetched->run_json);
    if (!fetched->log_tail.empty()) writeFileAtomic(RunPaths{local}.log(), fetched->log_tail);
    if (!fetched->status_json.empty()) {
      writeFileAtomic(local / "remote-status.json", fetched->status_json);  // the remote's own record, as sent
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
