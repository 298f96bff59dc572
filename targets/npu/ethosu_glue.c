/* ethosu_glue.c - ember_npu_invoke over Arm's Ethos-U core driver (ethos-u-core-driver).
 *
 * A firmware whose chip has an Ethos-U links this file (CMake: ember::ethos_u) and the driver
 * (Zephyr's hal_ethos_u module, the vendor SDK's or Arm's own build), having called
 * ethosu_init() on the NPU at start-up with its register base and, for an Ethos-U65/U85 in a
 * dedicated-SRAM memory mode, its fast memory (docs/npu.md). Per NPU partition this reserves a
 * driver, runs Vela's command stream on the base addresses the runtime planned (the driver
 * replaces region 2 with its fast memory when it has one, hence the copy), and releases it. The
 * driver checks the command stream's configuration against the NPU's own registers, flushes and
 * invalidates the D-cache around the run through its weak hooks, and waits for the NPU's
 * interrupt. Written against the driver's public API (ethosu_driver.h); no driver source here. */
#include <ethosu_driver.h>

#include "ember/runtime/ember.h"

ember_status ember_npu_invoke(const ember_npu_job* job) {
  uint64_t base[3];
  size_t sizes[3];
  if (job->num_base_addrs != 3) return EMBER_STATUS_NpuFailed;
  for (int i = 0; i < 3; ++i) base[i] = job->base_addrs[i], sizes[i] = job->base_addr_sizes[i];
  struct ethosu_driver* drv = ethosu_reserve_driver();
  if (drv == NULL) return EMBER_STATUS_NpuFailed;
  const int result = ethosu_invoke_v3(drv, job->command_stream, (int)job->command_stream_size, base, sizes, 3, NULL);
  ethosu_release_driver(drv);
  return result == 0 ? EMBER_STATUS_Ok : EMBER_STATUS_NpuFailed;
}
