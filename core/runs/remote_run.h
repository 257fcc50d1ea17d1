// A training run on a remote host over SSH, mirrored into a local run directory so the workbench
// follows it like any run (`mixerlab remote ... -- train ...`). The remote command is built word by
// word with every word single-quoted for the remote shell, so host paths and arguments never pass
// through a shell unquoted (ssh itself is exec'd with an argument vector, no local shell). While the
// remote job runs, its status.json, run.json, log.txt and the new part of metrics.jsonl are fetched
// every poll (one ssh call, framed sections); the local status names this mirror process, so Stop
// in the GUI signals it, and it stops the remote job (SIGTERM to the remote rank 0) and mirrors
// the final state. Key-based: ssh runs with BatchMode (no password prompts).
#pragma once
#include <atomic>
#include <filesystem>
#include <string>
#include <vector>

#include "core/util/subprocess.h"  // runCapture, which the ssh calls go through

namespace mixerlab {

struct RemoteHost {
  std::string host;  // name or address
  std::string user;  // empty: ssh's default
  int port = 22;
  std::string identity_file;         // empty: ssh's default keys
  std::string folder;                // remote working folder holding the project (paths are relative to it)
  std::string program = "mixerlab";  // the remote mixerlab executable
  int nproc = 1;                     // ranks on the remote host (its GPUs, or CPU ranks); > 1 uses `mixerlab launch`
  std::vector<std::string> ssh_options;  // extra "-o" options, e.g. "StrictHostKeyChecking=accept-new"
};

// 'it'\''s' style single quoting for a POSIX shell.
std::string shellQuote(const std::string& word);
// The ssh argument vector (program first) running `remote_command` on the host.
std::vector<std::string> sshArguments(const RemoteHost& host, const std::string& remote_command);
// `cd '<folder>' && exec '<program>' ['launch' '--nproc' 'N' '--'] 'train' ... '--out' 'runs'`.
std::string remoteTrainCommand(const RemoteHost& host, const std::vector<std::string>& train_arguments);

struct RemoteRunRequest {
  RemoteHost host;
  std::vector<std::string> train_arguments;  // {"train", PROJECT (relative to folder), "--run", ...}
  std::string run_id;                        // the run folder name (the --run-id, else the run)
  std::filesystem::path local_run_dir;       // where the mirror is written
  double poll_s = 1.0;
  const std::atomic<bool>* stop_requested = nullptr;  // SIGTERM/SIGINT of this process
};

// Runs the remote job to its end, mirroring it. Returns the remote job's exit code (0 finished).
// Throws MixerLabError for a bad request (a run id that is no folder name, a missing host).
int runRemoteTraining(const RemoteRunRequest& request);

}  // namespace mixerlab
