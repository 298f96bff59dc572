//===- lut_s8.cc - Optimized int8 table lookup: checks, runs --------------===//

#include "kernels/arm/lut_s8.h"

#include "kernels/portable/lut_s8.h"

namespace ember::kernels::arm {

rt::Status check_lut_s8(const rt::OpContext& c) { return kernels::check_lut_s8(c); }

rt::Status run_lut_s8(const rt::OpContext& c) {
  const int8_t* in = c.in(0).as<const int8_t>();
  const int8_t* table = c.in(1).as<const int8_t>();
  int8_t* out = c.out(0).as<int8_t>();
  const size_t n = c.in(0).num_elements();
  // Runs of at most 2^30 elements keep the int32 count in range.
  for (size_t done = 0; done < n;) {
    const size_t len = n - done < (size_t{1} << 30) ? n - done : (size_t{1} << 30);
    lut_s8_run(table, in + done, out + done, static_cast<int32_t>(len));
    done += len;
  }
  return rt::Status::Ok;
}

}  // namespace ember::kernels::arm
