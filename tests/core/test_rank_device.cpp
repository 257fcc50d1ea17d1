// Data-parallel device and backend choice: each rank of a GPU node takes the GPU of its
// LOCAL_RANK, too many ranks for the GPUs is refused with the counts, and the ranks agree on NCCL
// only when every one of them has a GPU and an NCCL-enabled LibTorch; otherwise Gloo. The rules
// are pure functions, checked here for GPU machines too; a real one-rank c10d join checks that a
// CPU job ends up on Gloo and that asking for NCCL there is refused clearly. Joining from the
// environment (what `train` and `bench train` do as ranks) shares the GPUs and the cores among the
// ranks on this machine and takes the backend the launcher named.
#include <torch/torch.h>
#include <QtTest/QtTest>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <thread>

#include "core/distributed/process_group.h"
#include "core/distributed/rank_device.h"
#include "core/distributed/rank_join.h"
#include "core/util/error.h"

using namespace mixerlab;

namespace {

// A free TCP port on the loopback interface for the store.
int freePort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
  socklen_t length = sizeof address;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  ::close(fd);
  return ntohs(address.sin_port);
}

QString errorOf(const std::function<void()>& call) {
  try {
    call();
  } catch (const MixerLabError& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

}  // namespace

class TestRankDevice : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void eachRankTakesItsOwnGpu() {
    QCOMPARE(rankDevice("auto", 0, 4, 4), std::string("cuda:0"));
    QCOMPARE(rankDevice("auto", 3, 4, 4), std::string("cuda:3"));
    QCOMPARE(rankDevice("cuda", 2, 4, 8), std::string("cuda:2"));
    QCOMPARE(rankDevice("auto", 1, 2, 0), std::string("cpu"));  // no GPU: CPU ranks (Gloo)
    QCOMPARE(rankDevice("cpu", 1, 4, 4), std::string("cpu"));
    QCOMPARE(rankDevice("cuda:1", 0, 1, 2), std::string("cuda:1"));  // one rank per machine may pick
  }

  void tooManyRanksForTheGpusIsRefused() {
    const QString more = errorOf([] { rankDevice("auto", 0, 4, 2); });
    QVERIFY2(more.contains("4 ranks") && more.contains("2 GPU") && more.contains("--nproc"), qPrintable(more));
    const QString shared = errorOf([] { rankDevice("cuda:0", 1, 2, 2); });
    QVERIFY2(shared.contains("one GPU") && shared.contains("LOCAL_RANK"), qPrintable(shared));
    const QString none = errorOf([] { rankDevice("cuda", 0, 1, 0); });
    QVERIFY2(none.contains("no CUDA GPU"), qPrintable(none));
    QVERIFY(!errorOf([] { rankDevice("tpu", 0, 1, 0); }).isEmpty());
  }

  void ncclOnlyWhenEveryRankVotesForIt() {
    QCOMPARE(agreedBackend({"nccl", "nccl", "nccl", "nccl"}), std::string("nccl"));
    QCOMPARE(agreedBackend({"nccl", "gloo"}), std::string("gloo"));
    QCOMPARE(agreedBackend({"gloo", "gloo"}), std::string("gloo"));
    QCOMPARE(agreedBackend({"nccl", "nccl"}, "gloo"), std::string("gloo"));
    const QString forced = errorOf([] { agreedBackend({"nccl", "gloo", "nccl"}, "nccl"); });
    QVERIFY2(forced.contains("rank 1"), qPrintable(forced));
    JoinOptions cpu;
    QCOMPARE(backendVote(cpu), std::string("gloo"));
    JoinOptions gpu;
    gpu.cuda_device = 0;
    QCOMPARE(backendVote(gpu), std::string(ncclBuiltIn() ? "nccl" : "gloo"));
  }

  // A real c10d rendezvous (TCPStore + vote) with one rank: a CPU rank gets Gloo and its collectives
  // work; asking for NCCL on a CPU rank names the rank and the fix.
  void cpuJobJoinsGlooAndRefusesNccl() {
    DistributedEnv env;
    env.master_port = freePort();
    JoinOptions options;
    options.timeout = std::chrono::seconds(20);
    auto group = ProcessGroup::join(env, options);
    QCOMPARE(group->backendName(), std::string("gloo"));
    at::Tensor x = torch::tensor({1.5f, -2.0f});
    group->allReduceSum(x);
    QVERIFY(torch::equal(x, torch::tensor({1.5f, -2.0f})));
    group.reset();

    env.master_port = freePort();
    options.backend = "nccl";
    const QString refused = errorOf([&] { ProcessGroup::join(env, options); });
    QVERIFY2(refused.contains("NCCL") && refused.contains("rank 0"), qPrintable(refused));
  }

  // LOCAL_WORLD_SIZE decides who shares this machine; without it (a bare srun) the GPUs are checked
  // up to this rank's own and the cores are shared by the whole job.
  void ranksShareTheMachineTheyAreOn() {
    DistributedEnv env{/*rank*/ 5, /*world_size*/ 8, /*local_rank*/ 1, /*local_world_size*/ 4};
    QCOMPARE(ranksSharingTheGpus(env), 4);
    QCOMPARE(ranksSharingTheCores(env), 4);
    QCOMPARE(cpuThreadsPerRank(env, 16), 4);
    QCOMPARE(cpuThreadsPerRank(env, 7), 1);
    QCOMPARE(cpuThreadsPerRank(env, 3), 1);  // never 0
    env.local_world_size = 0;
    QCOMPARE(ranksSharingTheGpus(env), 2);
    QCOMPARE(ranksSharingTheCores(env), 8);
    QCOMPARE(cpuThreadsPerRank(env, 16), 2);
    QCOMPARE(cpuThreadsPerRank(env, 15), 1);
    // A rank's training threads: the command line first (0 = every core), then the run's own
    // setting, then the rank's share of the machine.
    QCOMPARE(rankTrainThreads(int64_t{0}, 4, 2), int64_t{0});
    QCOMPARE(rankTrainThreads(int64_t{3}, 0, 2), int64_t{3});
    QCOMPARE(rankTrainThreads(std::nullopt, 4, 2), int64_t{4});
    QCOMPARE(rankTrainThreads(std::nullopt, 0, 2), int64_t{2});
  }

  // A process started as a rank joins from the environment: LOCAL_WORLD_SIZE and the backend the
  // launcher named are read (a malformed LOCAL_WORLD_SIZE is refused by name), the device stays
  // the CPU on a CPU machine, the cores are shared, and the group is the one asked for. A process
  // that is no rank joins nothing.
  void aRankJoinsFromTheEnvironment() {
    const auto unset = [] {
      for (const char* name :
           {"WORLD_SIZE", "RANK", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", kBackendVariable}) {
        qunsetenv(name);
      }
    };
    unset();
    QVERIFY(!joinFromEnvironment("cpu", 0).has_value());
    qputenv("WORLD_SIZE", "1");
    qputenv("RANK", "0");
    qputenv("LOCAL_WORLD_SIZE", "2");
    qputenv("MASTER_ADDR", "127.0.0.1");
    qputenv("MASTER_PORT", QByteArray::number(freePort()));
    qputenv(kBackendVariable, "gloo");  // a named backend makes a one-rank job join a group
    const auto env = distributedEnvFromEnvironment();
    QVERIFY(env.has_value());
    QCOMPARE(env->local_world_size, 2);
    QCOMPARE(env->backend, std::string("gloo"));
    auto joined = joinFromEnvironment("auto", 0);
    QVERIFY(joined.has_value());
    QCOMPARE(joined->device, std::string("cpu"));
    QCOMPARE(joined->cpu_threads, std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / 2));
    QVERIFY(joined->group != nullptr);
    QCOMPARE(joined->group->backendName(), std::string("gloo"));
    QCOMPARE(joined->group->worldSize(), 1);
    joined.reset();
    qputenv("MASTER_PORT", QByteArray::number(freePort()));
    qputenv(kBackendVariable, "nccl");  // the named backend reaches the join: refused on a CPU
    const QString refused = errorOf([] { joinFromEnvironment("cpu", 0); });
    QVERIFY2(refused.contains("NCCL"), qPrintable(refused));
    qputenv("LOCAL_WORLD_SIZE", "two");
    const QString malformed = errorOf([] { distributedEnvFromEnvironment(); });
    QVERIFY2(malformed.contains("LOCAL_WORLD_SIZE=\"two\""), qPrintable(malformed));
    unset();
  }
};

QTEST_APPLESS_MAIN(TestRankDevice)
#include "test_rank_device.moc"
