//===- memory_planner.cc - Greedy-by-size placement -----------------------===//

#include "ember/compiler/memory_planner.h"

#include <algorithm>
#include <cstdint>
#include <numeric>

namespace ember::compiler {

namespace {

uint64_t align_up(uint64_t v) { return (v + kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment; }
bool lifetimes_meet(const Buffer& a, const Buffer& b) {
  return a.first_op <= b.last_op && b.first_op <= a.last_op;
}

// A unit is a set of buffers at fixed distances: a chain of partners (each output at its
// input's offset minus the aligned delta), or one buffer alone.
struct Unit {
  std::vector<size_t> members;
  std::vector<uint64_t> rel;  // offset of each member from the unit's start
  uint64_t span = 0;
};

bool conflict(const Buffer& a, uint64_t oa, const Buffer& b, uint64_t ob) {
  return lifetimes_meet(a, b) && oa < ob + b.size && ob < oa + a.size && a.size && b.size;
}

// Offsets (multiples of kBufferAlignment, from 0) of a partner chain's members in the
// narrowest band: member k sits at least align(delta) below member k - 1, or, if it may rise,
// at least align(rise) above it. For a band width w, S_k is the set of feasible offsets of
// member k (inside [0, w - size_k]); S_k is at most two intervals, and S_{k+1} depends only on
// min and max of S_k, so one pass tests w. The least w is found by bisection (a wider band
// keeps every narrower solution); the offsets are then read back from the last member,
// preferring the downward link (a top-down kernel) where both fit.
std::vector<int64_t> chain_offsets(const std::vector<Buffer>& buffers, const std::vector<int>& chain) {
  const size_t n = chain.size();
  constexpr int64_t kNone = INT64_MIN;
  struct Span2 { int64_t a[2], b[2]; };  // intervals [a, b]; a == kNone: empty
  auto floor_a = [](int64_t v) { return v < 0 ? -1 : v / kBufferAlignment * kBufferAlignment; };
  std::vector<int64_t> down(n, 0), up(n, -1);  // link into member k; up < 0: may not rise
  int64_t widest = 0, start = 0, low = 0, high = 0;
  for (size_t k = 0; k < n; ++k) {
    const Buffer& b = buffers[chain[k]];
    widest = std::max<int64_t>(widest, static_cast<int64_t>(align_up(b.size)));
    if (k == 0) continue;
    down[k] = static_cast<int64_t>(align_up(b.overlap_delta));
    if (b.may_rise) up[k] = static_cast<int64_t>(align_up(b.overlap_rise));
  }
  std::vector<int64_t> all_down(n, 0);  // every link down: always feasible
  for (size_t k = 0; k < n; ++k) {
    if (k) start -= down[k];
    all_down[k] = start;
    low = std::min(low, start);
    high = std::max<int64_t>(high, start + static_cast<int64_t>(align_up(buffers[chain[k]].size)));
  }
  std::vector<Span2> sets(n);
  auto feasible = [&](int64_t w) {
    for (size_t k = 0; k < n; ++k) {
      const int64_t top = floor_a(w - static_cast<int64_t>(buffers[chain[k]].size));
      Span2& s = sets[k];
      s.a[0] = s.a[1] = kNone;
      if (top < 0) return false;
      if (k == 0) {
        s.a[0] = 0, s.b[0] = top;
        continue;
      }
      const Span2& p = sets[k - 1];
      int64_t lo = INT64_MAX, hi = INT64_MIN;
      for (int i = 0; i < 2; ++i)
        if (p.a[i] != kNone) lo = std::min(lo, p.a[i]), hi = std::max(hi, p.b[i]);
      if (hi - down[k] >= 0) s.a[0] = 0, s.b[0] = std::min(top, hi - down[k]);
      if (up[k] >= 0 && lo + up[k] <= top) s.a[1] = lo + up[k], s.b[1] = top;
      if (s.a[0] == kNone && s.a[1] == kNone) return false;
    }
    return true;
  };
  int64_t lo_w = widest, hi_w = static_cast<int64_t>(align_up(static_cast<uint64_t>(high - low)));
  if (!feasible(hi_w)) {  // cannot happen (all links down fit); keep the plain chain
    for (int64_t& v : all_down) v -= low;
    return all_down;
  }
  while (lo_w < hi_w) {
    const int64_t mid = (lo_w + hi_w) / 2 / kBufferAlignment * kBufferAlignment;
    if (mid >= lo_w && feasible(mid)) hi_w = mid;
    else lo_w = mid + kBufferAlignment;
  }
  feasible(hi_w);
  std::vector<int64_t> pos(n, 0);
  const Span2& last = sets[n - 1];
  pos[n - 1] = last.a[0] != kNone ? last.a[0] : last.a[1];
  for (size_t k = n - 1; k > 0; --k) {
    const Span2& p = sets[k - 1];
    // Distances in steps of `step` bytes: the link's grain where it has one (whole pixels),
    // tried first, then any 16-byte multiple.
    const int64_t grain = static_cast<int64_t>(buffers[chain[k]].overlap_grain);
    int64_t step = kBufferAlignment;
    if (grain > 0) {
      int64_t a = step, b = grain;
      while (b) a %= b, std::swap(a, b);
      step = step / a * grain;  // lcm(16, grain)
    }
    int64_t pick = kNone;
    for (const int64_t unit : {step, static_cast<int64_t>(kBufferAlignment)}) {
      const int64_t above = pos[k] + down[k];  // member k - 1 at or above this: k went down
      for (int i = 0; i < 2 && pick == kNone; ++i) {
        if (p.a[i] == kNone) continue;
        const int64_t from = std::max(p.a[i], above) - pos[k];
        const int64_t v = pos[k] + (from + unit - 1) / unit * unit;  // from >= 0
        if (v <= p.b[i]) pick = v;
      }
      if (pick == kNone && up[k] >= 0) {  // member k - 1 at or below pos[k] - up: k went up
        const int64_t below = pos[k] - up[k];
        for (int i = 0; i < 2; ++i) {
          if (p.a[i] == kNone) continue;
          const int64_t to = pos[k] - std::min(p.b[i], below);
          const int64_t v = pos[k] - (to + unit - 1) / unit * unit;  // to >= up >= 0
          if (v >= p.a[i] && v <= std::min(p.b[i], below)) pick = std::max(pick, v);
        }
      }
      if (pick != kNone) break;
    }
    pos[k - 1] = pick;  // some member of S_{k-1} led to S_k, so the second round finds one
  }
  return pos;
}

// Partner chains become units; a link whose unit would make two other members collide is
// dropped (the output then goes anywhere free).
std::vector<Unit> make_units(const std::vector<Buffer>& buffers, bool use_partners) {
  const size_t n = buffers.size();
  std::vector<int> next(n, -1), prev(n, -1);  // next: the output written over this input
  if (use_partners)
    for (size_t i = 0; i < n; ++i) {
      const int j = buffers[i].overlaps;
      if (j >= 0 && static_cast<size_t>(j) < n && j != static_cast<int>(i) && next[j] < 0 && prev[i] < 0)
        next[j] = static_cast<int>(i), prev[i] = j;
    }
  std::vector<Unit> units;
  std::vector<bool> seen(n, false);
  for (size_t head = 0; head < n; ++head) {
    if (seen[head] || prev[head] >= 0) continue;
    Unit u;
    std::vector<int64_t> rel;
    std::vector<int> chain;
    for (int i = static_cast<int>(head); i >= 0 && !seen[i] && chain.size() < buffers.size(); i = next[i])
      chain.push_back(i);
    const std::vector<int64_t> at_k = chain_offsets(buffers, chain);
    size_t k = 0;
    for (int i = static_cast<int>(head); i >= 0; i = next[i], ++k) {
      if (seen[i]) break;
      const int64_t at = at_k[k];
      if (!u.members.empty()) {
        bool ok = true;  // the new member must not collide with any but its partner
        for (size_t m = 0; m + 1 < u.members.size(); ++m)
          ok = ok && !conflict(buffers[i], static_cast<uint64_t>(at + (1LL << 40)), buffers[u.members[m]],
                               static_cast<uint64_t>(rel[m] + (1LL << 40)));
        if (!ok) break;  // the rest of the chain starts a new unit
      }
      seen[i] = true;
      u.members.push_back(static_cast<size_t>(i));
      rel.push_back(at);
    }
    const int64_t low = *std::min_element(rel.begin(), rel.end());
    for (size_t m = 0; m < u.members.size(); ++m) {
      u.rel.push_back(static_cast<uint64_t>(rel[m] - low));
      u.span = std::max(u.span, u.rel.back() + buffers[u.members[m]].size);
    }
    units.push_back(std::move(u));
  }
  for (size_t i = 0; i < n; ++i)  // chain tails cut off above
    if (!seen[i]) {
      for (int j = static_cast<int>(i); j >= 0 && !seen[j]; j = next[j]) {
        seen[j] = true;
        units.push_back(Unit{{static_cast<size_t>(j)}, {0}, buffers[j].size});
      }
    }
  return units;
}

// Places units in `order`, each at the lowest aligned start where no member collides with a
// placed buffer whose lifetime meets its own, except a partner at its allowed distance.
// Conflicts are open intervals of forbidden unit starts.
std::vector<uint64_t> place_in_order(const std::vector<Buffer>& buffers, const std::vector<Unit>& units,
                                     const std::vector<size_t>& order, uint64_t* arena_bytes) {
  std::vector<uint64_t> offsets(buffers.size(), 0);
  std::vector<size_t> placed;
  *arena_bytes = 0;
  for (size_t u : order) {
    const Unit& unit = units[u];
    std::vector<std::pair<int64_t, int64_t>> forbidden;  // starts s with lo < s < hi
    for (size_t m = 0; m < unit.members.size(); ++m) {
      const size_t i = unit.members[m];
      const Buffer& b = buffers[i];
      const int64_t size = static_cast<int64_t>(b.size), rel = static_cast<int64_t>(unit.rel[m]);
      if (b.size == 0) continue;
      for (size_t j : placed) {
        if (!lifetimes_meet(b, buffers[j]) || buffers[j].size == 0) continue;
        const int64_t off = static_cast<int64_t>(offsets[j]), other = static_cast<int64_t>(buffers[j].size);
        // b is the output: at or below j's offset - delta (or at or above + rise).
        if (b.overlaps == static_cast<int>(j)) {
          const int64_t up = b.may_rise ? std::min(other, static_cast<int64_t>(b.overlap_rise)) : other;
          forbidden.push_back({off - static_cast<int64_t>(b.overlap_delta) - rel, off + up - rel});
        } else if (buffers[j].overlaps == static_cast<int>(i)) {  // j is the output over b
          const Buffer& o = buffers[j];
          const int64_t up = o.may_rise ? std::min(size, static_cast<int64_t>(o.overlap_rise)) : size;
          forbidden.push_back({off - up - rel, off + static_cast<int64_t>(o.overlap_delta) - rel});
        } else {
          forbidden.push_back({off - size - rel, off + other - rel});
        }
      }
    }
    std::vector<uint64_t> candidates = {0};
    for (const auto& f : forbidden)
      if (f.second > 0) candidates.push_back(align_up(static_cast<uint64_t>(f.second)));
    std::sort(candidates.begin(), candidates.end());
    uint64_t start = candidates.back();
    for (uint64_t c : candidates) {
      const int64_t s = static_cast<int64_t>(c);
      bool ok = true;
      for (const auto& f : forbidden) ok = ok && (s <= f.first || s >= f.second);
      if (ok) { start = c; break; }
    }
    for (size_t m = 0; m < unit.members.size(); ++m) {
      offsets[unit.members[m]] = start + unit.rel[m];
      placed.push_back(unit.members[m]);
    }
    *arena_bytes = std::max(*arena_bytes, start + unit.span);
  }
  *arena_bytes = align_up(*arena_bytes);
  return offsets;
}

// Unit orders: largest span first (ties: earliest first), most bytes alive around its
// first use first, earliest first, and the first with each unit moved to the front.
std::vector<std::vector<size_t>> unit_orders(const std::vector<Buffer>& buffers, const std::vector<Unit>& units) {
  std::vector<uint64_t> crowd(units.size(), 0);
  std::vector<int> first(units.size(), 0);
  for (size_t u = 0; u < units.size(); ++u) {
    first[u] = buffers[units[u].members[0]].first_op;
    for (size_t i : units[u].members) {
      first[u] = std::min(first[u], buffers[i].first_op);
      uint64_t c = 0;
      for (const Buffer& b : buffers)
        if (b.first_op <= buffers[i].first_op && buffers[i].first_op <= b.last_op) c += b.size;
      crowd[u] = std::max(crowd[u], c);
    }
  }
  std::vector<size_t> by_size(units.size());
  std::iota(by_size.begin(), by_size.end(), 0);
  std::stable_sort(by_size.begin(), by_size.end(), [&](size_t a, size_t b) {
    if (units[a].span != units[b].span) return units[a].span > units[b].span;
    return first[a] < first[b];
  });
  std::vector<size_t> by_crowd = by_size, by_start = by_size;
  std::stable_sort(by_crowd.begin(), by_crowd.end(), [&](size_t a, size_t b) { return crowd[a] > crowd[b]; });
  std::stable_sort(by_start.begin(), by_start.end(), [&](size_t a, size_t b) { return first[a] < first[b]; });
  std::vector<std::vector<size_t>> orders = {by_size, by_crowd, by_start};
  for (size_t u = 0; u < by_size.size() && by_size.size() <= 256; ++u) {  // each unit first
    std::vector<size_t> o = {by_size[u]};
    for (size_t v : by_size)
      if (v != by_size[u]) o.push_back(v);
    orders.push_back(std::move(o));
  }
  return orders;
}

}  // namespace

std::vector<uint64_t> GreedyBySize::place(const std::vector<Buffer>& buffers, uint64_t* arena_bytes) const {
  const std::vector<Unit> units = make_units(buffers, false);
  return place_in_order(buffers, units, unit_orders(buffers, units)[0], arena_bytes);
}

namespace {

std::vector<uint64_t> place_best_order(const std::vector<Buffer>& buffers, uint64_t* arena_bytes) {
  const std::vector<Unit> units = make_units(buffers, true);
  std::vector<uint64_t> best;
  *arena_bytes = UINT64_MAX;
  for (const auto& order : unit_orders(buffers, units)) {
    uint64_t bytes = 0;
    std::vector<uint64_t> offsets = place_in_order(buffers, units, order, &bytes);
    if (bytes < *arena_bytes) *arena_bytes = bytes, best = std::move(offsets);
  }
  return best;
}

}  // namespace

std::vector<uint64_t> GreedyBest::place(const std::vector<Buffer>& buffers, uint64_t* arena_bytes) const {
  if (buffers.empty()) return *arena_bytes = 0, std::vector<uint64_t>{};
  // Partners chain into rigid units that drift down by every delta, so each link is taken only
  // when it does not raise the arena: links at the most crowded ops are tried first, twice
  // over; all links at once is the other candidate.
  std::vector<Buffer> trial = buffers;
  for (Buffer& b : trial) b.overlaps = -1;
  std::vector<uint64_t> best = place_best_order(trial, arena_bytes);
  std::vector<size_t> links;
  std::vector<uint64_t> crowd(buffers.size(), 0);
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (buffers[i].overlaps < 0) continue;
    links.push_back(i);
    for (const Buffer& b : buffers)
      if (b.first_op <= buffers[i].first_op && buffers[i].first_op <= b.last_op) crowd[i] += b.size;
  }
  std::stable_sort(links.begin(), links.end(), [&](size_t a, size_t b) { return crowd[a] > crowd[b]; });
  // Each trial places every buffer against every other (about n^2 checks per unit order): past
  // this budget (an unrolled recurrent layer has thousands of buffers and links) only the two
  // candidates without the per-link search are compared.
  constexpr uint64_t kSearchBudget = uint64_t{1} << 28;
  const uint64_t n = buffers.size();
  const int passes = links.size() * n * n <= kSearchBudget ? 2 : 0;
  for (int pass = 0; pass < passes; ++pass)
    for (size_t i : links) {
      if (trial[i].overlaps >= 0) continue;
      trial[i].overlaps = buffers[i].overlaps;
      uint64_t bytes = 0;
      std::vector<uint64_t> offsets = place_best_order(trial, &bytes);
      if (bytes <= *arena_bytes) *arena_bytes = bytes, best = std::move(offsets);
      else trial[i].overlaps = -1;
    }
  uint64_t all = 0;  // every link at once, for comparison
  std::vector<uint64_t> offsets = place_best_order(buffers, &all);
  if (all < *arena_bytes) *arena_bytes = all, best = std::move(offsets);
  return best;
}

uint64_t lifetime_lower_bound(const std::vector<Buffer>& buffers, int num_ops, int* peak_op) {
  uint64_t best = 0;
  *peak_op = -1;
  for (int op = 0; op < num_ops; ++op) {
    uint64_t live = 0;
    for (const Buffer& b : buffers)
      if (b.first_op <= op && op <= b.last_op) live += b.size;
    if (live > best) best = live, *peak_op = op;
  }
  return best;
}

}  // namespace ember::compiler
