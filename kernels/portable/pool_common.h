//===- pool_common.h - Shapes and windows shared by 2-D pools ---*- C++ -*-===//
//
// The plain structs the 2-D pooling kernels (int8 and float, average and max) take, their
// shared shape check, and the clipping of a window to the input that every pool's loops use,
// so that a pool's work is bounded by its operands' sizes whatever its window. Layout NHWC in
// and out; channels pass through unchanged.

#pragma once

#include <stdint.h>

#include "ember/kernels/portable/op_check.h"

namespace ember::kernels {

struct Pool2dShape {
  int32_t batches;
  int32_t in_h, in_w;
  int32_t channels;
  int32_t out_h, out_w;
};

/// Window of a 2-D pool; dilation is 1 for average pools. Padding bottom/right is implied by
/// the output size (check_window_axis).
struct Pool2dWindow {
  int32_t kernel_h, kernel_w;
  int32_t stride_h, stride_w;
  int32_t pad_top, pad_left;
  int32_t dilation_h, dilation_w;
};

/// Window size counted by count_include_pad along one axis, as PyTorch counts it: the window
/// starting at `start` (>= -pad_before) clipped to the padded extent [-pad_before,
/// in + pad_before). Equals `kernel` except where ceil mode lets a window overhang it.
inline int32_t padded_window_extent(int32_t start, int32_t kernel, int32_t in,
                                    int32_t pad_before) {
  const int32_t end = start + kernel < in + pad_before ? start + kernel : in + pad_before;
  return end - start;
}

/// The taps of a window starting at `start` (its first tap, possibly < 0) with `kernel` taps
/// `dilation` apart that land in [0, in): the first such tap's index and how many (0 if none).
/// O(1), so a loop over the clipped taps does no work for taps in the padding: a window of
/// 65,536 taps over a 1-pixel input costs one tap, not 65,536. Needs start + (kernel - 1) *
/// dilation to fit int32, which check_window_axis ensures.
inline void clip_window(int32_t start, int32_t kernel, int32_t dilation, int32_t in, int32_t* first,
                        int32_t* count) {
  int32_t k0 = 0;
  if (start < 0) k0 = (-start + dilation - 1) / dilation;
  int32_t k1 = kernel;  // one past the last tap inside
  if (start + (kernel - 1) * dilation >= in) k1 = start >= in ? 0 : (in - 1 - start) / dilation + 1;
  *first = start + k0 * dilation;
  *count = k1 > k0 ? k1 - k0 : 0;
}

/// The max pools' walk (int8 and float): every output element is `store` of the largest tap of
/// its window inside the input by `takes(v, m)` (v replaces the running maximum m), starting
/// from `lowest`, which padding never beats. Output elements in NHWC order.
template <typename T, typename Takes, typename Store>
inline void max_pool2d(const Pool2dShape& s, const Pool2dWindow& w, T lowest, Takes takes, const T* input,
                       Store store) {
  for (int32_t n = 0; n < s.batches; ++n)
    for (int32_t y = 0; y < s.out_h; ++y) {
      int32_t iy0, ny;
      clip_window(y * w.stride_h - w.pad_top, w.kernel_h, w.dilation_h, s.in_h, &iy0, &ny);
      for (int32_t x = 0; x < s.out_w; ++x) {
        int32_t ix0, nx;
        clip_window(x * w.stride_w - w.pad_left, w.kernel_w, w.dilation_w, s.in_w, &ix0, &nx);
        for (int32_t c = 0; c < s.channels; ++c) {
          T m = lowest;
          for (int32_t ky = 0; ky < ny; ++ky) {
            const int32_t iy = iy0 + ky * w.dilation_h;
            for (int32_t kx = 0; kx < nx; ++kx) {
              const int32_t ix = ix0 + kx * w.dilation_w;
              const T v = input[((static_cast<size_t>(n) * s.in_h + iy) * s.in_w + ix) * s.channels + c];
              if (takes(v, m)) m = v;
            }
          }
          store(((static_cast<size_t>(n) * s.out_h + y) * s.out_w + x) * s.channels + c, m);
        }
      }
    }
}

inline Pool2dShape pool_shape_from(const TensorView& in, const TensorView& out) {
  return Pool2dShape{in.dims[0], in.dims[1], in.dims[2], in.dims[3], out.dims[1], out.dims[2]};
}

/// ints[0..5] = kernel_h, kernel_w, stride_h, stride_w, pad_top, pad_left; dilation from
/// ints[6..7] when `dilated`, else 1.
inline Pool2dWindow pool_window_from(const int32_t* ints, bool dilated) {
  return Pool2dWindow{ints[0], ints[1], ints[2], ints[3], ints[4], ints[5],
                      dilated ? ints[6] : 1, dilated ? ints[7] : 1};
}

/// in and out rank-4 NHWC of `dtype` with equal N and C, at least one channel, window
/// consistent on both axes.
inline Status check_pool2d(const TensorView& in, const TensorView& out, DType dtype,
                           const Pool2dWindow& w) {
  EMBER_KCHECK(valid_view(in) && valid_view(out), BadShape);
  EMBER_KCHECK(in.dtype == dtype && out.dtype == dtype, BadOpSignature);
  EMBER_KCHECK(in.rank == 4 && out.rank == 4, BadShape);
  EMBER_KCHECK(in.dims[0] == out.dims[0] && in.dims[3] == out.dims[3], BadShape);
  // As for a conv (and PyTorch's pools): with no channels both tensors hold no bytes, and
  // nothing would bound H and W.
  EMBER_KCHECK(in.dims[3] >= 1, BadShape);
  EMBER_RETURN_IF_ERROR(check_window_axis(in.dims[1], out.dims[1], w.kernel_h, w.stride_h,
                                          w.pad_top, w.dilation_h, true));
  return check_window_axis(in.dims[2], out.dims[2], w.kernel_w, w.stride_w, w.pad_left,
                           w.dilation_w, true);
}

}  // namespace ember::kernels
