// Large engine-owned arrays on 2 MiB pages: an allocator that aligns allocations of at least
// kHugePageMin bytes to 2 MiB and asks the kernel for transparent huge pages (madvise MADV_HUGEPAGE;
// what /sys/kernel/mm/transparent_hugepage/enabled = "madvise" allows), before the first touch, so the
// pages are faulted in huge. A shuffled pass over data or weights larger than the TLB's reach then
// misses the TLB far less often. Smaller arrays, and systems without madvise, use the ordinary heap.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace robustcore {

inline constexpr std::size_t kHugePage = std::size_t{1} << 21;
inline constexpr std::size_t kHugePageMin = 2 * kHugePage;  ///< smaller arrays: ordinary pages

template <class T>
struct HugePageAllocator {
  using value_type = T;
  HugePageAllocator() = default;
  template <class U>
  HugePageAllocator(const HugePageAllocator<U>&) {}

  T* allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kHugePageMin) return std::allocator<T>().allocate(n);
    const std::size_t rounded = (bytes + kHugePage - 1) & ~(kHugePage - 1);
    void* p = std::aligned_alloc(kHugePage, rounded);
    if (!p) throw std::bad_alloc();
#if defined(MADV_HUGEPAGE)
    madvise(p, rounded, MADV_HUGEPAGE);  // a hint: failure leaves ordinary pages
#endif
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) {
    if (n * sizeof(T) < kHugePageMin) std::allocator<T>().deallocate(p, n);
    else std::free(p);
  }
  template <class U>
  bool operator==(const HugePageAllocator<U>&) const { return true; }
  template <class U>
  bool operator!=(const HugePageAllocator<U>&) const { return false; }
};

/// A std::vector whose buffer is on huge pages when it is large (see HugePageAllocator).
template <class T>
using HugeVector = std::vector<T, HugePageAllocator<T>>;

}  // namespace robustcore
