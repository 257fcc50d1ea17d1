// A real Slurm on loopback for tests: munged on a socket of its own, slurmctld and one slurmd
// (node "localhost", 2 CPUs, partition "debug"), configured in a scratch folder on ports of their
// own and stopped when the object goes. It needs root and Debian's slurm-wlm and munge; start()
// says why it cannot run otherwise. SLURM_CONF is set in this process while it runs, so sbatch,
// squeue and the jobs' ranks (which inherit the submitting environment) reach this cluster.
#pragma once
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QSysInfo>
#include <QTest>

#include <signal.h>
#include <unistd.h>

#include <filesystem>

namespace mixerlab::testing {

class SlurmCluster {
 public:
  explicit SlurmCluster(std::filesystem::path dir) : dir_(QString::fromStdString(dir.string())) {}
  ~SlurmCluster() { stop(); }
  SlurmCluster(const SlurmCluster&) = delete;
  SlurmCluster& operator=(const SlurmCluster&) = delete;

  // Empty when the cluster answers with an idle node; otherwise why it cannot run here.
  QString start() {
    if (::getuid() != 0) return "the Slurm daemons need root";
    for (const char* tool : {"munged", "slurmctld", "slurmd", "sbatch", "sinfo"}) {
      if (program(tool).isEmpty()) return QString("%1 is not installed (Debian: slurm-wlm and munge)").arg(tool);
    }
    QDir().mkpath(dir_ + "/state");
    QDir().mkpath(dir_ + "/spool");
    QDir().mkpath(dir_ + "/munge");
    const QString key = QFile::exists("/etc/munge/munge.key") ? QString("/etc/munge/munge.key") : makeKey();
    if (key.isEmpty()) return "no munge key could be made";
    const QString munged = run(program("munged"), {"--force", "--socket=" + socket(), "--pid-file=" + pid("munged"),
                                                   "--log-file=" + dir_ + "/munge/munged.log",
                                                   "--seed-file=" + dir_ + "/munge/seed", "--key-file=" + key});
    if (!munged.isEmpty()) return "munged did not start: " + munged;
    writeConfiguration();
    qputenv("SLURM_CONF", conf().toUtf8());
    if (const QString e = run(program("slurmctld"), {}); !e.isEmpty()) return "slurmctld did not start: " + e;
    if (const QString e = run(program("slurmd"), {"-N", "localhost"}); !e.isEmpty())
      return "slurmd did not start: " + e;
    started_ = true;
    QElapsedTimer waited;
    waited.start();
    while (waited.elapsed() < 60000) {
      QProcess sinfo;
      sinfo.start(program("sinfo"), {"-h", "-o", "%T"});
      sinfo.waitForFinished(10000);
      if (QString::fromUtf8(sinfo.readAllStandardOutput()).trimmed() == "idle") return {};
      QTest::qWait(200);
    }
    return "the Slurm node never became idle; see " + dir_ + "/slurmd.log and slurmctld.log";
  }

  void stop() {
    if (!started_) return;
    for (const char* daemon : {"slurmd", "slurmctld", "munged"}) {
      QFile file(pid(daemon));
      if (file.open(QIODevice::ReadOnly)) ::kill(file.readAll().trimmed().toInt(), SIGTERM);
    }
    started_ = false;
    qunsetenv("SLURM_CONF");
  }

  QString conf() const { return dir_ + "/slurm.conf"; }

 private:
  static QString program(const char* name) {
    return QStandardPaths::findExecutable(name, {"/usr/sbin", "/usr/bin", "/sbin", "/bin"});
  }
  QString socket() const { return dir_ + "/munge/munge.socket.2"; }
  QString pid(const char* daemon) const { return dir_ + "/" + daemon + ".pid"; }

  // Runs a daemon's start (it forks into the background); empty when it started.
  static QString run(const QString& program, const QStringList& args) {
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(program, args);
    if (!p.waitForFinished(30000)) return program + " did not return";
    return p.exitCode() == 0 ? QString() : QString::fromUtf8(p.readAll()).trimmed();
  }

  QString makeKey() const {
    QFile random("/dev/urandom"), key(dir_ + "/munge/munge.key");
    if (!random.open(QIODevice::ReadOnly) || !key.open(QIODevice::WriteOnly)) return {};
    key.write(random.read(1024));
    key.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    return key.fileName();
  }

  void writeConfiguration() const {
    const QString host = QSysInfo::machineHostName().section('.', 0, 0);
    const int base = 20000 + static_cast<int>(::getpid() % 5000) * 2;  // two ports of this test's own
    QFile file(conf());
    file.open(QIODevice::WriteOnly | QIODevice::Truncate);
    const QString d = dir_;
    file.write(QString("ClusterName=mixerlab-test\n"
                       "SlurmctldHost=%1(127.0.0.1)\n"
                       "SlurmctldPort=%2\nSlurmdPort=%3\n"
                       "AuthType=auth/munge\nAuthInfo=socket=%4\n"
                       "StateSaveLocation=%5/state\nSlurmdSpoolDir=%5/spool\n"
                       "SlurmctldPidFile=%5/slurmctld.pid\nSlurmdPidFile=%5/slurmd.pid\n"
                       "SlurmctldLogFile=%5/slurmctld.log\nSlurmdLogFile=%5/slurmd.log\n"
                       "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n"
                       "SelectType=select/cons_tres\nSelectTypeParameters=CR_Core\nSchedulerType=sched/backfill\n"
                       "ReturnToService=2\nSlurmUser=root\nSlurmdUser=root\nMpiDefault=none\n"
                       "JobAcctGatherType=jobacct_gather/none\nAccountingStorageType=accounting_storage/none\n"
                       "NodeName=localhost NodeHostname=%1 NodeAddr=127.0.0.1 CPUs=2 RealMemory=1000 State=UNKNOWN\n"
                       "PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP\n")
                   .arg(host)
                   .arg(base)
                   .arg(base + 1)
                   .arg(socket(), d)
                   .toUtf8());
  }

  QString dir_;
  bool started_ = false;
};

}  // namespace mixerlab::testing
