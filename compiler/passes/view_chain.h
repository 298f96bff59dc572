//===- view_chain.h - A chain of reshapes and transposes as one transpose -*- C++ -*-===//
//
// Reshapes and transposes only reorder elements. A chain of them (a channel shuffle's view,
// transpose and view between the layout pass's transposes; attention's kᵀ viewed as 3-D and
// transposed back for the product) is one transpose of its source viewed in the right shape:
// the source's dims are split into the finest factors every reshape of the chain respects
// ("atoms"), each tensor of the chain is an order of those atoms, and the chain's result is
// one permutation of them. Runs of atoms adjacent in both orders merge back into one dim.

#pragma once

#include <vector>

#include "ember/compiler/ir.h"

namespace ember::compiler {

/// The ops that compute `op`'s output (a transpose) from the start of the chain of reshapes
/// and transposes ending in it: a reshape when the chain moves no element, else reshape (if
/// needed), one transpose of rank <= 5, reshape (if needed). Empty when the chain holds one
/// transpose only, or when it cannot be written so (a reshape that mixes moved dims, more
/// than five dims after merging).
std::vector<Op> collapse_view_chain(Graph& g, const Op& op);

}  // namespace ember::compiler
