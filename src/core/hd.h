/* FC_HD marks a kernel body shared by the CPU and CUDA backends: it is
 * `__host__ __device__` under nvcc and a plain static inline under a C
 * compiler. Per-element and per-row math is written once, in such bodies,
 * so the CPU tests exercise the GPU's arithmetic too. */
#ifndef FC_CORE_HD_H
#define FC_CORE_HD_H

#ifdef __CUDACC__
#define FC_HD static inline __host__ __device__
#define FC_HD_INLINE static __forceinline__ __host__ __device__
#else
#define FC_HD static inline
#define FC_HD_INLINE static inline __attribute__((always_inline))
#endif
/* FC_HD_INLINE: a small body that a large caller (a TA-Lib function, all
 * 201 of them behind one dispatch) must not call out of line: inlined
 * whatever the compiler's size budget says. */

#endif
