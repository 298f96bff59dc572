/* testing/ethosu_driver.h - The three functions of Arm's Ethos-U driver API (ethosu_driver.h of
 * ethos-u-core-driver, as its documentation declares them) that ethosu_glue.c calls, for
 * building and testing the glue here, where the driver is not installed. A firmware compiles
 * the glue against the driver's own header instead. */
#ifndef EMBER_TESTING_ETHOSU_DRIVER_H_
#define EMBER_TESTING_ETHOSU_DRIVER_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ethosu_driver;

struct ethosu_driver* ethosu_reserve_driver(void);
void ethosu_release_driver(struct ethosu_driver* drv);
int ethosu_invoke_v3(struct ethosu_driver* drv, const void* custom_data_ptr, const int custom_data_size,
                     uint64_t* const base_addr, const size_t* base_addr_size, const int num_base_addr,
                     void* user_arg);

#ifdef __cplusplus
}
#endif

#endif
