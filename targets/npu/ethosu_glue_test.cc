//===- ethosu_glue_test.cc - ember_npu_invoke over the driver's API -------===//
//
// The glue compiled against the driver API's declarations (testing/ethosu_driver.h), with this
// file standing in for the driver: it records what the glue passes and returns what the test
// asks. No NPU or driver runs here; what is tested is that the job reaches the driver's entry
// as the driver takes it, that the driver is always released, and how its errors map.

#include <gtest/gtest.h>

#include <vector>

#include "ember/runtime/ember.h"
#include "ethosu_driver.h"

namespace {

struct DriverStandIn {
  int reserved = 0, released = 0, result = 0;
  bool refuse = false;
  const void* data = nullptr;
  int size = 0, num = 0;
  std::vector<uint64_t> base;
  std::vector<size_t> sizes;
} g_driver;

struct ethosu_driver* const kDriver = reinterpret_cast<struct ethosu_driver*>(0x1000);

}  // namespace

extern "C" struct ethosu_driver* ethosu_reserve_driver(void) {
  ++g_driver.reserved;
  return g_driver.refuse ? nullptr : kDriver;
}

extern "C" void ethosu_release_driver(struct ethosu_driver* drv) {
  EXPECT_EQ(drv, kDriver);
  ++g_driver.released;
}

extern "C" int ethosu_invoke_v3(struct ethosu_driver* drv, const void* data, const int size, uint64_t* const base,
                                const size_t* sizes, const int num, void* user) {
  EXPECT_EQ(drv, kDriver);
  EXPECT_EQ(user, nullptr);
  g_driver.data = data, g_driver.size = size, g_driver.num = num;
  g_driver.base.assign(base, base + num);
  g_driver.sizes.assign(sizes, sizes + num);
  base[2] = 0x30000000;  // the driver puts its fast memory there: the runtime's array stays as it was
  return g_driver.result;
}

namespace {

TEST(EthosUGlue, PassesTheJobToTheDriverAndReleasesIt) {
  alignas(16) static const uint32_t container[8] = {0x31504F43};
  const uint64_t base[3] = {0x10000000, 0x21000000, 0x21001000};
  const size_t sizes[3] = {4096, 2048, 512};
  const ember_npu_job job{container, sizeof container, base, sizes, 3, nullptr, 0, nullptr, 0, nullptr, 0};
  g_driver = {};
  EXPECT_EQ(ember_npu_invoke(&job), EMBER_STATUS_Ok);
  EXPECT_EQ(g_driver.data, container);
  EXPECT_EQ(g_driver.size, 32);
  EXPECT_EQ(g_driver.num, 3);
  EXPECT_EQ(g_driver.base, std::vector<uint64_t>(base, base + 3));
  EXPECT_EQ(g_driver.sizes, std::vector<size_t>(sizes, sizes + 3));
  EXPECT_EQ(base[2], 0x21001000u);
  EXPECT_EQ(g_driver.reserved, 1);
  EXPECT_EQ(g_driver.released, 1);

  g_driver.result = -1;  // the driver's error
  EXPECT_EQ(ember_npu_invoke(&job), EMBER_STATUS_NpuFailed);
  EXPECT_EQ(g_driver.released, 2);
  g_driver.refuse = true;  // no driver to reserve
  EXPECT_EQ(ember_npu_invoke(&job), EMBER_STATUS_NpuFailed);
  EXPECT_EQ(g_driver.released, 2);
}

}  // namespace
