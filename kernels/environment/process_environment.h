// The process environment: every environment variable the core and the CLI read, in one table
// (name, role, meaning), and the one function that reads them. Code elsewhere never calls getenv: it
// asks for a variable of this table by its enum, so the table is the complete list that
// docs/compute-paths.md documents (a test checks that every entry is there; the GUI's own three,
// read through Qt, are listed there too). Torch-free, the bottom of the layers: core/util and the
// kernels both read through it.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace mixerlab::kernels {

enum class EnvironmentRole {
  kComputePath,  // picks one of several code paths computing the same function (compute_paths.h)
  kRank,         // set by `mixerlab launch`, torchrun or Slurm for each data-parallel rank
  kProcess,      // how the process itself starts or checks its resources
  kTestHook,     // fault injection for tests: never set in normal use
  kSystem,       // the operating system's conventions (program search path, home folders)
};

enum class EnvironmentVariable {
  kTokenMix,
  kMixerStack,
  kScanForward,
  kRowSimd,
  kDecodeStep,
  kDecodeGraphs,
  kOptimizer,
  kWorldSize,
  kRank,
  kLocalRank,
  kLocalWorldSize,
  kMasterAddress,
  kMasterPort,
  kProcessGroupBackend,
  kLauncherHeartbeat,
  kGlooSocketInterface,
  kSlurmStepId,
  kSlurmNtasks,
  kSlurmProcId,
  kSlurmLocalId,
  kSlurmTasksPerNode,
  kSlurmNtasksPerNode,
  kSlurmJobNodeList,
  kSlurmJobId,
  kOpenMpWaitPolicy,
  kNoReexec,
  kSkipMemoryCheck,
  kCrashAt,
  kSearchPath,
  kHome,
  kXdgDataHome,
};

struct EnvironmentVariableInfo {
  EnvironmentVariable variable;
  const char* name;
  EnvironmentRole role;
  const char* meaning;
};

inline constexpr std::array<EnvironmentVariableInfo, 31> kEnvironmentVariables{{
    {EnvironmentVariable::kTokenMix, "MIXERLAB_TOKEN_MIX", EnvironmentRole::kComputePath,
     "the causal token mix: custom op or one GEMM"},
    {EnvironmentVariable::kMixerStack, "MIXERLAB_MIXER_STACK", EnvironmentRole::kComputePath,
     "the flat masked mixer's block stack: modules, token-major or fused"},
    {EnvironmentVariable::kScanForward, "MIXERLAB_SCAN_FORWARD", EnvironmentRole::kComputePath,
     "the CUDA selective scan's forward: a thread per channel or a lane per state"},
    {EnvironmentVariable::kRowSimd, "MIXERLAB_ROW_SIMD", EnvironmentRole::kComputePath,
     "the instruction set of the decoders' one-row products"},
    {EnvironmentVariable::kDecodeStep, "MIXERLAB_DECODE_STEP", EnvironmentRole::kComputePath,
     "the cached mixer's one-token step: fused fp32 loops or ATen ops"},
    {EnvironmentVariable::kDecodeGraphs, "MIXERLAB_DECODE_GRAPHS", EnvironmentRole::kComputePath,
     "KV-cache steps as a static step replayed as a CUDA graph"},
    {EnvironmentVariable::kOptimizer, "MIXERLAB_OPTIMIZER", EnvironmentRole::kComputePath,
     "the AdamW update: fused or multi-tensor where built, or the library's"},
    {EnvironmentVariable::kWorldSize, "WORLD_SIZE", EnvironmentRole::kRank, "the number of data-parallel ranks"},
    {EnvironmentVariable::kRank, "RANK", EnvironmentRole::kRank, "this process's rank, 0 .. WORLD_SIZE-1"},
    {EnvironmentVariable::kLocalRank, "LOCAL_RANK", EnvironmentRole::kRank, "the rank on this machine (its GPU)"},
    {EnvironmentVariable::kLocalWorldSize, "LOCAL_WORLD_SIZE", EnvironmentRole::kRank, "ranks on this machine"},
    {EnvironmentVariable::kMasterAddress, "MASTER_ADDR", EnvironmentRole::kRank, "rank 0's address (the store)"},
    {EnvironmentVariable::kMasterPort, "MASTER_PORT", EnvironmentRole::kRank, "rank 0's store port"},
    {EnvironmentVariable::kProcessGroupBackend, "MIXERLAB_PROCESS_GROUP_BACKEND", EnvironmentRole::kRank,
     "gloo or nccl"},
    {EnvironmentVariable::kLauncherHeartbeat, "MIXERLAB_LAUNCHER_HEARTBEAT", EnvironmentRole::kRank,
     "the socket a rank reports its steps to its launcher on"},
    {EnvironmentVariable::kGlooSocketInterface, "GLOO_SOCKET_IFNAME", EnvironmentRole::kRank,
     "the network interface Gloo binds"},
    {EnvironmentVariable::kSlurmStepId, "SLURM_STEP_ID", EnvironmentRole::kRank,
     "set inside an srun step: the rank reads its place from Slurm's variables"},
    {EnvironmentVariable::kSlurmNtasks, "SLURM_NTASKS", EnvironmentRole::kRank,
     "Slurm's number of tasks: the world size"},
    {EnvironmentVariable::kSlurmProcId, "SLURM_PROCID", EnvironmentRole::kRank, "Slurm's task index: the rank"},
    {EnvironmentVariable::kSlurmLocalId, "SLURM_LOCALID", EnvironmentRole::kRank,
     "Slurm's task index on its node: the local rank"},
    {EnvironmentVariable::kSlurmTasksPerNode, "SLURM_TASKS_PER_NODE", EnvironmentRole::kRank,
     "tasks on each node (\"2(x3),1\"): the first node's count"},
    {EnvironmentVariable::kSlurmNtasksPerNode, "SLURM_NTASKS_PER_NODE", EnvironmentRole::kRank,
     "--ntasks-per-node: the ranks on each node"},
    {EnvironmentVariable::kSlurmJobNodeList, "SLURM_JOB_NODELIST", EnvironmentRole::kRank,
     "the job's hosts: the first is rank 0's"},
    {EnvironmentVariable::kSlurmJobId, "SLURM_JOB_ID", EnvironmentRole::kRank,
     "the job id: the rendezvous port is 20000 + id mod 10000"},
    {EnvironmentVariable::kOpenMpWaitPolicy, "OMP_WAIT_POLICY", EnvironmentRole::kProcess,
     "when unset the program restarts itself once with PASSIVE"},
    {EnvironmentVariable::kNoReexec, "MIXERLAB_NO_REEXEC", EnvironmentRole::kProcess,
     "set: never restart for OMP_WAIT_POLICY"},
    {EnvironmentVariable::kSkipMemoryCheck, "MIXERLAB_SKIP_MEMORY_CHECK", EnvironmentRole::kProcess,
     "1: start training without the does-it-fit-in-memory check"},
    {EnvironmentVariable::kCrashAt, "MIXERLAB_CRASH_AT", EnvironmentRole::kTestHook,
     "point[@hit]: the process kills itself there (crash-safety tests)"},
    {EnvironmentVariable::kSearchPath, "PATH", EnvironmentRole::kSystem, "where programs started by name are found"},
    {EnvironmentVariable::kHome, "HOME", EnvironmentRole::kSystem, "the demo project's home, without XDG_DATA_HOME"},
    {EnvironmentVariable::kXdgDataHome, "XDG_DATA_HOME", EnvironmentRole::kSystem, "where the demo project lives"},
}};

constexpr const EnvironmentVariableInfo& environmentVariableInfo(EnvironmentVariable variable) {
  for (const auto& info : kEnvironmentVariables) {
    if (info.variable == variable) return info;
  }
  return kEnvironmentVariables[0];  // unreachable: every enumerator has a row (checked by a test)
}
constexpr const char* environmentVariableName(EnvironmentVariable variable) {
  return environmentVariableInfo(variable).name;
}

// The variable's value; nullopt when it is unset or empty.
std::optional<std::string> environmentValue(EnvironmentVariable variable);
// For the processes this one starts (and its own later reads).
void setEnvironmentValue(EnvironmentVariable variable, const std::string& value);
void clearEnvironmentValue(EnvironmentVariable variable);

}  // namespace mixerlab::kernels
