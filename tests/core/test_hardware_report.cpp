// Hardware reports (each launch target shows what it has before a launch): nvidia-smi's
// CSV is parsed into GPUs, the one-line description groups equal GPUs and says when this build
// cannot use them, the JSON round-trips and a malformed one names the missing field, and
// `mixerlab probe --json` reports this machine's cores.
#include <QtTest/QtTest>

#include <thread>

#include <nlohmann/json.hpp>

#include "core/runs/remote_run.h"
#include "core/train/hardware_report.h"
#include "core/util/error.h"
#include "tests/test_support.h"

using namespace mixerlab;

class TestHardwareReport : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void nvidiaSmiCsvGivesTheGpus() {
    const auto gpus = parseNvidiaSmiGpus(
        "0, Tesla V100-SXM2-32GB, 32768\n1, Tesla V100-SXM2-32GB, 32768\n"
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver\n"
        "2, NVIDIA H100 80GB HBM3, 81559\n3, Broken GPU, [N/A]\n");
    QCOMPARE(gpus.size(), size_t{3});
    QCOMPARE(gpus[0].index, 0);
    QCOMPARE(QString::fromStdString(gpus[1].name), QString("Tesla V100-SXM2-32GB"));
    QCOMPARE(gpus[0].memory_gib, 32.0);
    QCOMPARE(gpus[2].index, 2);
    QCOMPARE(QString::fromStdString(gpus[2].name), QString("NVIDIA H100 80GB HBM3"));
    QVERIFY(std::abs(gpus[2].memory_gib - 81559.0 / 1024) < 1e-9);
    QVERIFY(parseNvidiaSmiGpus("").empty());
  }

  void descriptionGroupsEqualGpus() {
    HardwareReport node;
    node.host = "gpu-node";
    node.cpu_cores = 40;
    node.memory_gib = 376.2;
    for (int i = 0; i < 4; ++i) node.gpus.push_back({i, "Tesla V100-SXM2-32GB", 32});
    node.usable_gpus = 4;
    node.nccl_built_in = true;
    QCOMPARE(QString::fromStdString(describeHardware(node)),
             QString("gpu-node: 4x Tesla V100-SXM2-32GB (32 GiB each), NCCL, 40 cores, 376 GiB memory"));
    node.nccl_built_in = false;
    QVERIFY(describeHardware(node).find("no NCCL in this build (ranks use Gloo)") != std::string::npos);
    node.usable_gpus = 0;  // a CPU-only build on a GPU machine
    QVERIFY(describeHardware(node).find("not usable by this mixerlab build") != std::string::npos);
    QVERIFY2(describeHardware(node).rfind("gpu-node: 4x Tesla V100", 0) == 0,
             describeHardware(node).c_str());  // still the machine's 4
    node.gpus[3].name = "NVIDIA A100-SXM4-40GB";
    node.gpus[3].memory_gib = 40;
    QVERIFY(describeHardware(node).find("Tesla V100-SXM2-32GB (32 GiB), ") != std::string::npos);
    QVERIFY(describeHardware(node).find("NVIDIA A100-SXM4-40GB (40 GiB)") != std::string::npos);
    HardwareReport laptop;
    laptop.cpu_cores = 2;
    laptop.memory_gib = 7.64;
    QCOMPARE(QString::fromStdString(describeHardware(laptop)), QString("no GPU, 2 cores, 7.6 GiB memory"));
  }

  void jsonRoundTripsAndMalformedNamesTheField() {
    HardwareReport report;
    report.host = "h";
    report.cpu_cores = 16;
    report.memory_gib = 128;
    report.gpus = {{0, "NVIDIA H200", 140.4}};
    report.usable_gpus = 1;
    report.nccl_built_in = true;
    report.mixerlab_version = "0.9";
    const HardwareReport back = hardwareReportFromJson(nlohmann::json::parse(hardwareReportToJson(report).dump()));
    QCOMPARE(describeHardware(back), describeHardware(report));
    QCOMPARE(back.gpus.at(0).memory_gib, 140.4);
    QCOMPARE(QString::fromStdString(back.mixerlab_version), QString("0.9"));
    auto j = hardwareReportToJson(report);
    j.erase("cpu_cores");
    try {
      hardwareReportFromJson(j);
      QFAIL("a report without cpu_cores was accepted");
    } catch (const MixerLabError& e) {
      QVERIFY2(std::string(e.what()).find("cpu_cores") != std::string::npos, e.what());
    }
  }

  void probeCommandReportsThisMachine() {
    std::string output;
    const int code = runCapture({testing::cliPath().string(), "probe", "--json"}, &output);
    QVERIFY2(code == 0, output.c_str());
    const auto marker = output.find(kHardwareReportMarker);
    QVERIFY2(marker != std::string::npos, output.c_str());
    const HardwareReport report =
        hardwareReportFromJson(nlohmann::json::parse(output.substr(output.find('{', marker))));
    QCOMPARE(report.cpu_cores, static_cast<int>(std::thread::hardware_concurrency()));
    QVERIFY(report.memory_gib > 0.1);
    QVERIFY(report.gpus.size() >= static_cast<size_t>(report.usable_gpus));
    output.clear();
    QCOMPARE(runCapture({testing::cliPath().string(), "probe"}, &output), 0);
    QVERIFY2(output.find(std::to_string(report.cpu_cores) + " cores") != std::string::npos, output.c_str());
  }
};

QTEST_GUILESS_MAIN(TestHardwareReport)
#include "test_hardware_report.moc"
