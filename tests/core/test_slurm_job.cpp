// Slurm's side of a training job without a cluster: the first host of a host list and the first
// node's task count (the forms SLURM_JOB_NODELIST and SLURM_TASKS_PER_NODE take), a rank's place
// read from Slurm's variables inside an srun step (and not in the batch shell, and not over
// torchrun's own WORLD_SIZE), the batch script MixerLab writes (every setting, quoting, refusals
// naming the setting), and squeue's and scontrol's answers read. The jobs themselves run against a
// real Slurm in test_data_parallel.
#include <QtTest/QtTest>

#include <filesystem>

#include "core/distributed/distributed_env.h"
#include "core/distributed/slurm_job.h"
#include "core/distributed/slurm_node_list.h"
#include "core/util/error.h"
#include "tests/test_support.h"

using namespace mixerlab;

namespace {

QString q(const std::string& s) { return QString::fromStdString(s); }

const char* const kSlurmVariables[] = {"SLURM_STEP_ID",        "SLURM_NTASKS",
                                       "SLURM_PROCID",         "SLURM_LOCALID",
                                       "SLURM_JOB_ID",         "SLURM_JOB_NODELIST",
                                       "SLURM_TASKS_PER_NODE", "SLURM_NTASKS_PER_NODE",
                                       "WORLD_SIZE",           "RANK",
                                       "MASTER_ADDR",          "MASTER_PORT",
                                       "LOCAL_RANK",           "LOCAL_WORLD_SIZE"};

void clearRankVariables() {
  for (const char* name : kSlurmVariables) qunsetenv(name);
}

// The variables srun gives rank 3 of 4, two per node, on nodes gpu07 and gpu08 of job 123.
void setSlurmStep() {
  qputenv("SLURM_STEP_ID", "0");
  qputenv("SLURM_NTASKS", "4");
  qputenv("SLURM_PROCID", "3");
  qputenv("SLURM_LOCALID", "1");
  qputenv("SLURM_JOB_ID", "123");
  qputenv("SLURM_JOB_NODELIST", "gpu[07-08]");
  qputenv("SLURM_TASKS_PER_NODE", "2(x2)");
}

SlurmJobCommand command() {
  SlurmJobCommand c;
  c.job_name = "mixerlab-mixer";
  c.run_dir = "/data/p/runs/mixer";
  c.work_dir = "/data/p";
  c.argv = {"/usr/bin/mixerlab", "train", "/data/p/project.json", "--run", "it's"};
  return c;
}

}  // namespace

class TestSlurmJob : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void cleanup() { clearRankVariables(); }

  void firstHostOfAHostList_data() {
    QTest::addColumn<QString>("list");
    QTest::addColumn<QString>("host");
    QTest::newRow("range and more") << "gpu[01-04,07],login2"
                                    << "gpu01";
    QTest::newRow("one host") << "node7"
                              << "node7";
    QTest::newRow("two hosts") << "a,b"
                               << "a";
    QTest::newRow("list in brackets") << "n[3,1-2]"
                                      << "n3";
    QTest::newRow("two ranges") << "rack[1-2]-n[5-6]"
                                << "rack1-n5";
    QTest::newRow("only a range") << "[9-12]"
                                  << "9";
  }
  void firstHostOfAHostList() {
    QFETCH(QString, list);
    QFETCH(QString, host);
    QCOMPARE(q(firstSlurmHost(list.toStdString())), host);
  }

  void malformedListsAreRefusedByName() {
    for (const char* bad : {"", "gpu[01", "gpu[]", ",a"}) {
      const QString error = q(testing::errorOf([&] { firstSlurmHost(bad); }));
      QVERIFY2(error.contains(QString("\"%1\"").arg(bad)) && error.contains("MASTER_ADDR"), qPrintable(error));
    }
    QCOMPARE(firstSlurmTaskCount("2(x3),1"), 2);
    QCOMPARE(firstSlurmTaskCount("12"), 12);
    QCOMPARE(firstSlurmTaskCount("1"), 1);
    for (const char* bad : {"", "x2", "0", "0(x2)"}) {
      const QString error = q(testing::errorOf([&] { firstSlurmTaskCount(bad); }));
      QVERIFY2(error.contains("LOCAL_WORLD_SIZE"), qPrintable(bad + (": " + error)));
    }
  }

  // Inside an srun step a rank takes its place from Slurm; the job's first node is rank 0's host
  // and the port follows the job id, so two jobs on one node do not meet.
  void aRankReadsItsPlaceFromSlurm() {
    setSlurmStep();
    const auto env = distributedEnvFromEnvironment();
    QVERIFY(env.has_value());
    QCOMPARE(env->world_size, 4);
    QCOMPARE(env->rank, 3);
    QCOMPARE(env->local_rank, 1);
    QCOMPARE(env->local_world_size, 2);
    QCOMPARE(q(env->master_addr), QString("gpu07"));
    QCOMPARE(env->master_port, 20123);
    qputenv("SLURM_JOB_ID", "19999");
    QCOMPARE(distributedEnvFromEnvironment()->master_port, 29999);
    qputenv("SLURM_JOB_ID", "20000");
    QCOMPARE(distributedEnvFromEnvironment()->master_port, 20000);
    // --ntasks-per-node's variable, MASTER_ADDR and MASTER_PORT win over what is derived.
    qputenv("SLURM_NTASKS_PER_NODE", "3");
    qputenv("MASTER_ADDR", "10.0.0.9");
    qputenv("MASTER_PORT", "29555");
    const auto given = distributedEnvFromEnvironment();
    QCOMPARE(given->local_world_size, 3);
    QCOMPARE(q(given->master_addr), QString("10.0.0.9"));
    QCOMPARE(given->master_port, 29555);
    // torchrun (or mixerlab launch) inside a job: its own WORLD_SIZE decides.
    qputenv("WORLD_SIZE", "1");
    QVERIFY(!distributedEnvFromEnvironment().has_value());
  }

  void theBatchShellAndOneTaskTrainAlone() {
    setSlurmStep();
    qunsetenv("SLURM_STEP_ID");  // the batch script itself: SLURM_PROCID=0 of SLURM_NTASKS, no step
    QVERIFY(!distributedEnvFromEnvironment().has_value());
    setSlurmStep();
    qputenv("SLURM_NTASKS", "1");
    qputenv("SLURM_PROCID", "0");
    QVERIFY(!distributedEnvFromEnvironment().has_value());
    setSlurmStep();
    qputenv("SLURM_PROCID", "4");  // out of range: named
    const QString error = q(testing::errorOf([] { distributedEnvFromEnvironment(); }));
    QVERIFY2(error.contains("SLURM_PROCID"), qPrintable(error));
  }

  void theBatchScriptSaysEverySetting() {
    SlurmJobSettings s;
    s.partition = "gpu";
    s.account = "lab7";
    s.constraint = "v100";
    s.time_limit = "1-12:00:00";
    s.nodes = 2;
    s.tasks_per_node = 4;
    s.gpus_per_node = 4;
    s.cpus_per_task = 6;
    s.stop_warning_s = 300;
    s.extra_directives = {"--qos=long", "  --mail-type=END  "};
    const QString script = q(slurmBatchScript(s, command()));
    const QStringList lines = script.split('\n');
    QCOMPARE(lines.first(), QString("#!/bin/bash"));
    for (const char* line :
         {"#SBATCH --job-name=mixerlab-mixer", "#SBATCH --nodes=2", "#SBATCH --ntasks-per-node=4",
          "#SBATCH --gpus-per-node=4", "#SBATCH --cpus-per-task=6", "#SBATCH --partition=gpu", "#SBATCH --account=lab7",
          "#SBATCH --constraint=v100", "#SBATCH --time=1-12:00:00", "#SBATCH --signal=TERM@300",
          "#SBATCH --chdir=/data/p", "#SBATCH --output=/data/p/runs/mixer/slurm/job-%j.out",
          "#SBATCH --error=/data/p/runs/mixer/slurm/job-%j.err", "#SBATCH --qos=long", "#SBATCH --mail-type=END"})
      QVERIFY2(lines.contains(line), line);
    QCOMPARE(lines.at(lines.size() - 2),
             QString("exec srun --kill-on-bad-exit=1 '/usr/bin/mixerlab' 'train' '/data/p/project.json' '--run' "
                     "'it'\\''s'"));
    // The extra lines come after MixerLab's own, so a cluster's option can override one of them.
    QVERIFY(script.indexOf("--qos=long") > script.indexOf("--error="));
    // Defaults: no GPUs, CPUs, partition, account, constraint or time limit lines.
    const QString plain = q(slurmBatchScript(SlurmJobSettings{}, command()));
    for (const char* absent :
         {"--gpus-per-node", "--cpus-per-task", "--partition", "--account", "--constraint", "--time"})
      QVERIFY2(!plain.contains(absent), absent);
    QVERIFY(plain.contains("#SBATCH --signal=TERM@120\n") && plain.contains("#SBATCH --nodes=1\n"));
    SlurmJobSettings no_warning;
    no_warning.stop_warning_s = 0;
    QVERIFY(!q(slurmBatchScript(no_warning, command())).contains("--signal"));
  }

  void settingsAScriptCannotCarryAreRefused_data() {
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("named");
    QTest::newRow("nodes 0") << "nodes"
                             << "0"
                             << "nodes";
    QTest::newRow("tasks 0") << "tasks"
                             << "0"
                             << "tasks per node";
    QTest::newRow("gpus -1") << "gpus"
                             << "-1"
                             << "GPUs per node";
    QTest::newRow("partition with a space") << "partition"
                                            << "gpu long"
                                            << "partition";
    QTest::newRow("account with a newline") << "account"
                                            << "a\nb"
                                            << "account";
    QTest::newRow("time in hours") << "time"
                                   << "4h"
                                   << "time limit";
    QTest::newRow("time seconds of three digits") << "time"
                                                  << "1:00:100"
                                                  << "time limit";
    QTest::newRow("extra line spanning lines") << "extra"
                                               << "--qos=a\n--x"
                                               << "#SBATCH";
    QTest::newRow("empty extra line") << "extra"
                                      << " "
                                      << "#SBATCH";
    QTest::newRow("run folder with a space") << "run_dir"
                                             << "/data/my runs/mixer"
                                             << "run folder";
    QTest::newRow("run folder with a percent") << "run_dir"
                                               << "/data/100%/mixer"
                                               << "run folder";
  }
  void settingsAScriptCannotCarryAreRefused() {
    QFETCH(QString, field);
    QFETCH(QString, value);
    QFETCH(QString, named);
    SlurmJobSettings s;
    SlurmJobCommand c = command();
    const std::string v = value.toStdString();
    if (field == "nodes") s.nodes = value.toInt();
    if (field == "tasks") s.tasks_per_node = value.toInt();
    if (field == "gpus") s.gpus_per_node = value.toInt();
    if (field == "partition") s.partition = v;
    if (field == "account") s.account = v;
    if (field == "time") s.time_limit = v;
    if (field == "extra") s.extra_directives = {v};
    if (field == "run_dir") c.run_dir = v;
    const QString error = q(testing::errorOf([&] { slurmBatchScript(s, c); }));
    QVERIFY2(error.contains(named), qPrintable(error));
    // Every form Slurm reads passes.
    for (const char* time : {"90", "30:00", "4:00:00", "1-12", "1-12:30", "2-00:00:00", "UNLIMITED"}) {
      SlurmJobSettings ok;
      ok.time_limit = time;
      QVERIFY2(testing::errorOf([&] { validateSlurmSettings(ok); }).empty(), time);
    }
  }

  // Without Slurm's commands on PATH, submit names sbatch and the fix; the script stays for a look
  // and no job record is written.
  void aMissingSbatchIsNamed() {
    const std::filesystem::path dir = testing::makeScratchDir("slurm-no-sbatch");
    SlurmJobCommand c = command();
    c.run_dir = dir / "runs" / "mixer";
    c.work_dir = dir;
    const QByteArray path = qgetenv("PATH");
    qputenv("PATH", QByteArray::fromStdString((dir / "empty-bin").string()));
    const QString error = q(testing::errorOf([&] { submitSlurmJob(SlurmJobSettings{}, c); }));
    qputenv("PATH", path);
    QVERIFY2(error.contains("cannot run Slurm's sbatch") && error.contains("install Slurm's client commands"),
             qPrintable(error));
    QVERIFY(std::filesystem::exists(slurmScriptFile(c.run_dir)));
    QVERIFY(!std::filesystem::exists(slurmJobFile(c.run_dir)));
    QVERIFY(!recordedSlurmJob(c.run_dir).has_value());
  }

  void slurmsAnswersAreRead() {
    const SlurmJobState pending = parseSqueueLine("PENDING|Priority\n");
    QCOMPARE(q(pending.state), QString("PENDING"));
    QCOMPARE(q(pending.reason), QString("Priority"));
    QVERIFY(!parseSqueueLine("").known());
    QVERIFY(!parseSqueueLine("\n").known());
    const SlurmJobState ended = parseScontrolJob(
        "JobId=5 JobName=mixerlab-mixer UserId=root(0) JobState=CANCELLED Reason=None "
        "Dependency=(null) Requeue=1 Restarts=0 BatchFlag=1");
    QCOMPARE(q(ended.state), QString("CANCELLED"));
    QCOMPARE(q(ended.reason), QString("None"));
    QCOMPARE(q(parseScontrolJob("OldJobState=RUNNING JobState=TIMEOUT Reason=TimeLimit").state), QString("TIMEOUT"));
    QVERIFY(!parseScontrolJob("slurm_load_jobs error: Invalid job id specified").known());
  }
};

QTEST_GUILESS_MAIN(TestSlurmJob)
#include "test_slurm_job.moc"
