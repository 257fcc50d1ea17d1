// A training run on a remote host over SSH, mirrored into a local run directory so the workbench
// follows it like any run (`mixerlab remote ... -- train ...`). The remote command is built word by
// word with every word single-quoted for the remote shell, so host paths and arguments never pass
// through a shell unquoted (ssh itself is exec'd with an argument vector, no local shell). While the
// remote job runs, its status.json, run.json, log.txt and the new part of metrics.jsonl are fetched
// every poll (one ssh call, framed sections, the remote's standard error kept apart; a poll whose
// output is not exactly as framed is discarded and asked again); the local status names this mirror process, so Stop
// in the GUI signals it, and it stops the remote job (SIGTERM to the remote rank 0) and mirrors
// the final state. Key-based: ssh runs with BatchMode (no password prompts).
#pragma once
#include <atomic>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/util/shell_quote.h"  // shellQuote, used with sshArguments
#include "core/util/subprocess.h"   // runCapture, which the ssh calls go through

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

// The ssh argument vector (program first) running `remote_command` on the host.
std::vector<std::string> sshArguments(const RemoteHost& host, const std::string& remote_command);
// `cd '<folder>' && exec '<program>' ['launch' '--nproc' 'N' '--'] 'train' ... '--out' 'runs'`.
std::string remoteTrainCommand(const RemoteHost& host, const std::vector<std::string>& train_arguments);

// One poll of a remote run by the mirror. The command (for the remote shell; every word quoted,
// its standard error silenced) prints, between marker lines: the metrics log's size S, exactly its
// bytes from `metrics_offset` to S, status.json, run.json and the log's tail. Nothing when the run
// folder does not exist yet.
std::string remotePollCommand(const std::string& folder, const std::string& run_dir, uint64_t metrics_offset);

struct RemotePoll {
  bool run_folder_exists = false;
  uint64_t metrics_size = 0;  // S: below the offset asked for when the log was rewritten (a resume)
  std::string new_metrics;    // the log's bytes from the offset to S (the last line may be incomplete)
  std::string status_json, run_json, log_tail;  // empty when missing
};

// The poll's standard output, checked: nullopt when it is not exactly what the command prints (a
// cut connection, or stray text such as a shell message among the sections, whose bytes must never
// be taken for metrics), so the mirror discards the poll and asks again.
std::optional<RemotePoll> parseRemotePoll(const std::string& output, uint64_t metrics_offset);

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
