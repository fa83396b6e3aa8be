/* Sustained rates, on one thread, of the instructions fcast's matrix
 * kernels are built from (issue 39): the fp32 FMA (ymm, zmm), AVX512-BF16's
 * pair dot product VDPBF16PS (ymm, zmm), AVX512-FP16's VFMADD231PH and
 * AMX's TDPBF16PS. Each row is the ceiling of one way of writing a matrix
 * kernel on this machine kind, and its ratio to the fp32 FMA says what
 * moving a kernel to that instruction could gain; bench_matmul says how
 * near the kernels come to their ceiling.
 *
 * Each row runs in a forked child (cpu_probe.c's fc_cpu_probe_in_child), so
 * a CPU that advertises an instruction and faults on it (hypervisors do
 * that with AMX) costs only the child, and the row says "faults (SIGILL)".
 * The child reports through a shared page: its rate, or how it failed.
 *
 * The loops run in registers on 12 independent accumulators (AMX: 4 tiles),
 * enough to cover latency times ports on the cores we know, and compute a
 * result known exactly that the child checks: a loop the compiler removed,
 * or an instruction that computes something else, shows as "wrong result"
 * rather than as a rate.
 *
 * usage: bench_isa_rates [--seconds X] [--json] [--check]
 *   --seconds X  length of a run (default 0.2); a row is the best of 3
 *   --json       one JSON line instead of the table
 *   --check      each row the CPU has, briefly (0.01 s); exits 1 when one
 *                computes a wrong result or hangs (ctest runs this) */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "backend/cpu/cpu_internal.h"
#include "kernels/lowp.h"

/* What the compiler can build: the intrinsics of each family came with
 * these gcc / clang versions (clang before 16 declares AVX512-FP16's only
 * under -mavx512fp16, not for a function's target); elsewhere a row has no
 * kernel. */
#if defined(__clang__)
#define FC_CC(gcc, clang) (__clang_major__ >= (clang))
#elif defined(__GNUC__)
#define FC_CC(gcc, clang) (__GNUC__ >= (gcc))
#else
#define FC_CC(gcc, clang) 0
#endif
#if defined(__x86_64__) && FC_CC(5, 4)
#define FC_X86 1
#else
#define FC_X86 0
#endif
#define FC_HAVE_BF16 (FC_X86 && FC_CC(10, 9))
#define FC_HAVE_FP16 (FC_X86 && FC_CC(12, 16))
#if FC_X86 && FC_CC(11, 12) && !defined(FC_NO_AMX)   /* cpu_amx.c's gate: its tile configuration is used */
#define FC_HAVE_AMX 1
#else
#define FC_HAVE_AMX 0
#endif

#if FC_X86
#include <cpuid.h>
#include <immintrin.h>
#include <sys/syscall.h>
#endif

#define CHECK_SECONDS 0.01
#define STEP 0.25f   /* what one product adds to an accumulator; exact in fp16 and bf16 */

/* ---- the CPU's flags ---- */

enum { F_AVX2, F_FMA, F_AVX512F, F_AVX512VL, F_AVX512BF16, F_AVX512FP16, F_AMX_TILE, F_AMX_BF16, F_COUNT };
#define NEED(f) (1u << (f))
static const char *const flag_names[F_COUNT] = {"avx2",       "fma",        "avx512f",  "avx512vl",
                                                "avx512bf16", "avx512fp16", "amx-tile", "amx-bf16"};

#if FC_X86
/* CPUID leaf 7, subleaf 0, EDX bit `bit`. */
static unsigned leaf7_edx(int bit) {
    unsigned a, b, c, d;
    return __get_cpuid_count(7, 0, &a, &b, &c, &d) && ((d >> bit) & 1);
}
#endif

/* A bit per flag found. __builtin_cpu_supports checks that the OS saves the
 * registers too; clang 14 does not know the names avx512fp16, amx-tile and
 * amx-bf16, so those come from CPUID for both compilers (FP16 on top of
 * AVX-512F's OS check; AMX's OS grant is asked in the row's child). */
static unsigned cpu_flags(void) {
    unsigned f = 0;
#if FC_X86
    __builtin_cpu_init();
    f |= __builtin_cpu_supports("avx2") ? NEED(F_AVX2) : 0;
    f |= __builtin_cpu_supports("fma") ? NEED(F_FMA) : 0;
    f |= __builtin_cpu_supports("avx512f") ? NEED(F_AVX512F) : 0;
    f |= __builtin_cpu_supports("avx512vl") ? NEED(F_AVX512VL) : 0;
#if FC_HAVE_BF16
    f |= __builtin_cpu_supports("avx512bf16") ? NEED(F_AVX512BF16) : 0;
#endif
    f |= (f & NEED(F_AVX512F)) && leaf7_edx(23) ? NEED(F_AVX512FP16) : 0;
    f |= leaf7_edx(24) ? NEED(F_AMX_TILE) : 0;
    f |= leaf7_edx(22) ? NEED(F_AMX_BF16) : 0;
#endif
    return f;
}

/* ---- the loops ---- */

#if FC_X86
/* Operands read at run time, so that the compiler cannot fold the loops. */
static volatile float opaque_one = 1.0f, opaque_step = STEP;

static int lanes_differ(const float *v, int n, float want) {
    for (int i = 0; i < n; i++)
        if (v[i] != want) return 1;
    return 0;
}
#endif

/* Every vector row runs this loop: accumulator i starts at i, gains STEP
 * per product and loses it again, n times, then gains it once more, so it
 * ends at i + STEP per product whatever n is (no value needs more than a
 * few bits: runs of any length stay exact). A row `r` supplies, with its
 * target, r_start(i) (an accumulator of i), r_splat(v) (an operand of v),
 * r_step(acc, x, y) (its instruction: acc + x.y) and r_wrong(acc, i)
 * (nonzero unless acc holds what it should); A and O are the accumulators'
 * and the operands' types. 12 accumulators cover latency x ports (up to
 * 6 x 2) and, with the three operands, fit AVX2's 16 registers. */
#define ACCS(F, r, y)                                                                                     \
    F(0, r, y) F(1, r, y) F(2, r, y) F(3, r, y) F(4, r, y) F(5, r, y) F(6, r, y) F(7, r, y) F(8, r, y) \
        F(9, r, y) F(10, r, y) F(11, r, y)
#define ACC_COUNT 12
#define ACC_START(i, r, A) A acc##i = r##_start(i);
#define ACC_STEP(i, r, y) acc##i = r##_step(acc##i, x, y);
#define ACC_WRONG(i, r, _) r##_wrong(acc##i, i) |
#define RATE_KERNEL(r, target, A, O)                                                         \
    target static int r##_kernel(long n) {                                                   \
        const O x = r##_splat(opaque_one), p = r##_splat(opaque_step), m = r##_splat(-opaque_step); \
        ACCS(ACC_START, r, A)                                                                \
        for (long k = 0; k < n; k++) {                                                       \
            ACCS(ACC_STEP, r, p)                                                             \
            ACCS(ACC_STEP, r, m)                                                             \
        }                                                                                    \
        ACCS(ACC_STEP, r, p)                                                                 \
        return ACCS(ACC_WRONG, r, ) 0;                                                       \
    }

/* r_start and r_wrong for accumulators of `lanes` fp32 in A (intrinsics
 * P_...: P is _mm256 or _mm512) that a step raises by `gain`. */
#define FP32_ACCUMULATORS(r, target, A, P, lanes, gain)                      \
    target static inline A r##_start(int i) { return P##_set1_ps((float)i); } \
    target static int r##_wrong(A acc, int i) {                               \
        float v[lanes];                                                       \
        P##_storeu_ps(v, acc);                                                \
        return lanes_differ(v, lanes, (float)i + (gain));                     \
    }

/* VFMADD231PS: 8 (ymm) or 16 (zmm) fp32 lanes. */
#if FC_X86
#define FP32_FMA_ROW(r, target, A, P, lanes)                                              \
    FP32_ACCUMULATORS(r, target, A, P, lanes, STEP)                                       \
    target static inline A r##_splat(float v) { return P##_set1_ps(v); }                  \
    target static inline A r##_step(A acc, A x, A y) { return P##_fmadd_ps(x, y, acc); } \
    RATE_KERNEL(r, target, A, A)

FP32_FMA_ROW(ps_ymm, __attribute__((target("avx2,fma"))), __m256, _mm256, 8)
FP32_FMA_ROW(ps_zmm, __attribute__((target("avx512f"))), __m512, _mm512, 16)
#else
#define ps_ymm_kernel NULL   /* a row the compiler cannot build has no kernel */
#define ps_zmm_kernel NULL
#endif

/* VDPBF16PS: each fp32 lane adds the products of a pair of bf16 values
 * (1 . STEP twice: 2 STEP a step). */
#if FC_HAVE_BF16
#define BF16_DOT_ROW(r, target, A, O, P, lanes)                                                             \
    FP32_ACCUMULATORS(r, target, A, P, lanes, 2 * STEP)                                                     \
    target static inline O r##_splat(float v) { return P##_cvtne2ps_pbh(P##_set1_ps(v), P##_set1_ps(v)); } \
    target static inline A r##_step(A acc, O x, O y) { return P##_dpbf16_ps(acc, x, y); }                  \
    RATE_KERNEL(r, target, A, O)

BF16_DOT_ROW(bf16_ymm, __attribute__((target("avx512bf16,avx512vl"))), __m256, __m256bh, _mm256, 8)
BF16_DOT_ROW(bf16_zmm, __attribute__((target("avx512bf16"))), __m512, __m512bh, _mm512, 16)
#else
#define bf16_ymm_kernel NULL
#define bf16_zmm_kernel NULL
#endif

/* VFMADD231PH: 32 fp16 lanes, accumulated in fp16. The values go in and
 * come out as bit patterns (lowp.h), which keeps _Float16 out of the file. */
#if FC_HAVE_FP16
#define FP16_ZMM __attribute__((target("avx512fp16")))

FP16_ZMM static inline __m512h ph_zmm_splat(float v) {
    return _mm512_castsi512_ph(_mm512_set1_epi16((short)fc_f16_from_f32(v)));
}
FP16_ZMM static inline __m512h ph_zmm_start(int i) { return ph_zmm_splat((float)i); }
FP16_ZMM static inline __m512h ph_zmm_step(__m512h acc, __m512h x, __m512h y) { return _mm512_fmadd_ph(x, y, acc); }
FP16_ZMM static int ph_zmm_wrong(__m512h acc, int i) {
    uint16_t h[32];
    float v[32];
    _mm512_storeu_si512(h, _mm512_castph_si512(acc));
    for (int k = 0; k < 32; k++) v[k] = fc_f16_to_f32(h[k]);
    return lanes_differ(v, 32, (float)i + STEP);
}
RATE_KERNEL(ph_zmm, FP16_ZMM, __m512h, __m512h)
#else
#define ph_zmm_kernel NULL
#endif

/* TDPBF16PS on fcast's AMX tile configuration (cpu_amx.c: 8 tiles of 16
 * rows x 64 bytes): C tiles 0-3 (16 x 16 fp32) += A (tile 4: 16 x 32 bf16
 * of 1) . B (tile 5 of STEP, tile 6 of -STEP), so every element of C gains
 * or loses 32 STEP a step, as in the vector loop. Four accumulator tiles
 * keep the unit busy while each product waits on the last one into its
 * tile. */
#if FC_HAVE_AMX
#define FC_ARCH_REQ_XCOMP_PERM 0x1023
#define FC_XFEATURE_XTILEDATA 18
#define AMX __attribute__((target("amx-tile,amx-bf16")))

/* The OS's permission to use the tile state (asked in the row's child). */
static int tiles_refused(void) {
    return syscall(SYS_arch_prctl, FC_ARCH_REQ_XCOMP_PERM, FC_XFEATURE_XTILEDATA) != 0;
}

static uint16_t tile_one[512] __attribute__((aligned(64)));
static uint16_t tile_plus[512] __attribute__((aligned(64))), tile_minus[512] __attribute__((aligned(64)));
static float tile_c[4][256] __attribute__((aligned(64)));

static void tiles_fill(void) {
    for (int i = 0; i < 512; i++) {
        tile_one[i] = fc_bf16_from_f32(opaque_one);
        tile_plus[i] = fc_bf16_from_f32(opaque_step);
        tile_minus[i] = fc_bf16_from_f32(-opaque_step);
    }
    for (int t = 0; t < 4; t++)
        for (int i = 0; i < 256; i++) tile_c[t][i] = (float)t;
}

/* gcc's tile intrinsics are asm statements, not expressions: one a line. */
#define TILE_PASS(b)            \
    _tile_dpbf16ps(0, 4, b);    \
    _tile_dpbf16ps(1, 4, b);    \
    _tile_dpbf16ps(2, 4, b);    \
    _tile_dpbf16ps(3, 4, b)

AMX static int amx_kernel(long n) {
    tiles_fill();
    fc_cpu_amx_kernel.thread_begin();
    _tile_loadd(0, tile_c[0], 64);
    _tile_loadd(1, tile_c[1], 64);
    _tile_loadd(2, tile_c[2], 64);
    _tile_loadd(3, tile_c[3], 64);
    _tile_loadd(4, tile_one, 64);
    _tile_loadd(5, tile_plus, 64);
    _tile_loadd(6, tile_minus, 64);
    for (long k = 0; k < n; k++) {
        TILE_PASS(5);
        TILE_PASS(6);
    }
    TILE_PASS(5);
    _tile_stored(0, tile_c[0], 64);
    _tile_stored(1, tile_c[1], 64);
    _tile_stored(2, tile_c[2], 64);
    _tile_stored(3, tile_c[3], 64);
    fc_cpu_amx_kernel.thread_end();
    int wrong = 0;
    for (int t = 0; t < 4; t++) wrong |= lanes_differ(tile_c[t], 256, (float)t + 32 * STEP);
    return wrong;
}
#else
#define tiles_refused NULL
#define amx_kernel NULL
#endif

/* ---- the rows ---- */

typedef struct {
    const char *instruction, *isa;
    double flop;        /* per instruction, 2 per multiply-add */
    int per_pass;       /* instructions per pass over the accumulators */
    unsigned needs;     /* the flags the row needs */
    int (*kernel)(long n);        /* 2n + 1 passes; 0 when exact; NULL: not built */
    int (*refused)(void);         /* nonzero when the OS will not run it (or NULL) */
} isa_row;

static const isa_row rows[] = {
    {"VFMADD231PS ymm", "AVX2+FMA", 16, ACC_COUNT, NEED(F_AVX2) | NEED(F_FMA), ps_ymm_kernel, NULL},
    {"VFMADD231PS zmm", "AVX-512F", 32, ACC_COUNT, NEED(F_AVX512F), ps_zmm_kernel, NULL},
    {"VDPBF16PS ymm", "AVX512-BF16+VL", 32, ACC_COUNT, NEED(F_AVX512F) | NEED(F_AVX512VL) | NEED(F_AVX512BF16),
     bf16_ymm_kernel, NULL},
    {"VDPBF16PS zmm", "AVX512-BF16", 64, ACC_COUNT, NEED(F_AVX512F) | NEED(F_AVX512BF16), bf16_zmm_kernel, NULL},
    {"VFMADD231PH zmm", "AVX512-FP16", 64, ACC_COUNT, NEED(F_AVX512FP16), ph_zmm_kernel, NULL},
    {"TDPBF16PS", "AMX-BF16", 16384, 4, NEED(F_AMX_TILE) | NEED(F_AMX_BF16), amx_kernel, tiles_refused},
};
enum { ROW_COUNT = sizeof rows / sizeof rows[0], FP32_ROWS = 2 };   /* the first two: the fp32 FMA */

/* ---- a row in a child ---- */

typedef enum {
    ROW_OK, ROW_ABSENT, ROW_NOT_BUILT, ROW_REFUSED, ROW_FAULTS, ROW_WRONG, ROW_TIMED_OUT, ROW_DIED, ROW_NO_CHILD
} row_status;

/* The page the child writes and the parent reads (MAP_SHARED). */
typedef struct {
    volatile sig_atomic_t signal, started;
    row_status status;
    double ginstr;
} child_report;

static child_report *report;
static const isa_row *child_row;
static double child_seconds;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Seconds of one call of kernel(n); -1 when its result is wrong. */
static double timed(int (*kernel)(long), long n) {
    double t0 = now();
    int wrong = kernel(n);
    double t = now() - t0;
    return wrong ? -1 : t;
}

/* n for a run of about `seconds`: doubled until a run takes an eighth of
 * that (which warms the unit up too), then scaled; 0 on a wrong result,
 * or when 2^40 iterations take no time (the loop is gone). */
static long iterations_for(int (*kernel)(long), double seconds) {
    for (long n = 64; n < (1L << 40); n *= 2) {
        double t = timed(kernel, n);
        if (t < 0) return 0;
        if (t >= seconds / 8) return (long)((double)n * seconds / t) + 1;
    }
    return 0;
}

static void on_fault(int sig) {
    report->signal = sig;
    _exit(1);
}

/* The child's work: the best of 3 runs, in Ginstr/s; 0 when it ran right. */
static int measure_in_child(void) {
    report->started = 1;
    int faults[] = {SIGILL, SIGSEGV, SIGBUS, SIGFPE};
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++) signal(faults[i], on_fault);
    const isa_row *r = child_row;
    if (r->refused && r->refused()) return report->status = ROW_REFUSED, 1;
    long n = iterations_for(r->kernel, child_seconds);
    double best = -1;
    for (int run = 0; run < 3 && n > 0; run++) {
        double t = timed(r->kernel, n);
        if (t < 0) n = 0;
        else if (best < 0 || t < best) best = t;
    }
    if (n == 0) return report->status = ROW_WRONG, 1;
    report->ginstr = (2.0 * (double)n + 1) * r->per_pass / best * 1e-9;
    return 0;
}

typedef struct {
    row_status status;
    int signal;     /* the fault's, for ROW_FAULTS */
    double ginstr;  /* for ROW_OK */
} row_result;

static row_result run_row(const isa_row *r, unsigned flags, double seconds) {
    if ((flags & r->needs) != r->needs) return (row_result){ROW_ABSENT, 0, 0};
    if (!r->kernel) return (row_result){ROW_NOT_BUILT, 0, 0};
    memset((void *)report, 0, sizeof *report);
    child_row = r, child_seconds = seconds;
    int timeout_ms = (int)(10000 + 10000 * seconds);
    double t0 = now();
    if (fc_cpu_probe_in_child(measure_in_child, timeout_ms)) return (row_result){ROW_OK, 0, report->ginstr};
    if (report->signal) return (row_result){ROW_FAULTS, report->signal, 0};
    if (!report->started) return (row_result){ROW_NO_CHILD, 0, 0};
    if (report->status != ROW_OK) return (row_result){report->status, 0, 0};
    return (row_result){now() - t0 >= timeout_ms / 1000.0 ? ROW_TIMED_OUT : ROW_DIED, 0, 0};
}

/* ---- the output ---- */

static const char *signal_name(int sig) {
    return sig == SIGILL ? "SIGILL" : sig == SIGSEGV ? "SIGSEGV" : sig == SIGBUS ? "SIGBUS" : "SIGFPE";
}

static void status_text(const row_result *res, char *out, size_t size) {
    static const char *const text[] = {"ok", "not on this CPU", "not built by this compiler",
                                       "tiles refused by the OS", "faults", "wrong result",
                                       "timed out", "died", "no child process"};
    if (res->status == ROW_FAULTS) snprintf(out, size, "faults (%s)", signal_name(res->signal));
    else snprintf(out, size, "%s", text[res->status]);
}

/* The best measured fp32 FMA row's GFLOP/s, the ratios' base; 0 if none. */
static double fp32_base(const row_result *res) {
    double base = 0;
    for (int i = 0; i < FP32_ROWS; i++)
        if (res[i].status == ROW_OK && res[i].ginstr * rows[i].flop > base) base = res[i].ginstr * rows[i].flop;
    return base;
}

/* /proc/cpuinfo's first "model name", or "unknown". */
static void cpu_model(char *out, size_t size) {
    snprintf(out, size, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    while (f && fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) != 0 || !colon) continue;
        colon += 1 + (colon[1] == ' ');
        colon[strcspn(colon, "\n")] = 0;
        snprintf(out, size, "%s", colon);
        break;
    }
    if (f) fclose(f);
}

/* The flags found, then those not found (when any). */
static void print_flags(unsigned flags) {
    for (int f = 0; f < F_COUNT; f++)
        if (flags & NEED(f)) printf(" %s", flag_names[f]);
    if (flags == NEED(F_COUNT) - 1) return;
    printf(" (not found:");
    for (int f = 0; f < F_COUNT; f++)
        if (!(flags & NEED(f))) printf(" %s", flag_names[f]);
    printf(")");
}

static void print_table(const char *model, unsigned flags, double seconds, const row_result *res) {
    printf("bench_isa_rates: one thread, best of 3 runs of %.2f s a row\ncpu: %s\nflags:", seconds, model);
    print_flags(flags);
    printf("\n%-16s %-15s %10s %9s %9s %12s\n", "instruction", "ISA", "flop/instr", "Ginstr/s", "GFLOP/s",
           "x fp32 FMA");
    double base = fp32_base(res);
    for (int i = 0; i < ROW_COUNT; i++) {
        const isa_row *r = &rows[i];
        printf("%-16s %-15s %10.0f ", r->instruction, r->isa, r->flop);
        char status[64];
        status_text(&res[i], status, sizeof status);
        double gflops = res[i].ginstr * r->flop;
        if (res[i].status != ROW_OK) printf(" %s\n", status);
        else if (base > 0) printf("%9.3f %9.1f %12.2f\n", res[i].ginstr, gflops, gflops / base);
        else printf("%9.3f %9.1f %12s\n", res[i].ginstr, gflops, "-");
    }
    printf("flop: 2 per multiply-add (VDPBF16PS: 2 per lane, zmm 16 lanes x 2 x 2 = 64;\n"
           "TDPBF16PS: 16x16 fp32 += 16x32 . 32x16 bf16, 4 accumulator tiles).\n"
           "VFMADD231PH accumulates in fp16; fcast's kernels accumulate in fp32.\n");
}

static void print_json_string(const char *s) {
    putchar('"');
    for (; *s; s++)
        if (*s == '"' || *s == '\\') printf("\\%c", *s);
        else if ((unsigned char)*s < 0x20) printf("\\u%04x", *s);
        else putchar(*s);
    putchar('"');
}

static void print_json(const char *model, unsigned flags, double seconds, const row_result *res) {
    printf("{\"bench\":\"isa_rates\",\"threads\":1,\"seconds\":%g,\"cpu\":", seconds);
    print_json_string(model);
    printf(",\"flags\":{");
    for (int f = 0; f < F_COUNT; f++)
        printf("%s\"%s\":%s", f ? "," : "", flag_names[f], (flags & NEED(f)) ? "true" : "false");
    printf("},\"rows\":[");
    double base = fp32_base(res);
    for (int i = 0; i < ROW_COUNT; i++) {
        const isa_row *r = &rows[i];
        char status[64];
        status_text(&res[i], status, sizeof status);
        printf("%s{\"instruction\":\"%s\",\"isa\":\"%s\",\"flop_per_instr\":%.0f,\"status\":\"%s\"", i ? "," : "",
               r->instruction, r->isa, r->flop, status);
        double gflops = res[i].ginstr * r->flop;
        if (res[i].status == ROW_OK) printf(",\"ginstr_per_s\":%.4g,\"gflops\":%.4g", res[i].ginstr, gflops);
        if (res[i].status == ROW_OK && base > 0) printf(",\"vs_fp32_fma\":%.3f", gflops / base);
        printf("}");
    }
    printf("]}\n");
}

static int usage(void) {
    fprintf(stderr, "usage: bench_isa_rates [--seconds X] [--json] [--check]\n");
    return 2;
}

int main(int argc, char **argv) {
    double seconds = 0.2;
    int json = 0, check = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json")) json = 1;
        else if (!strcmp(argv[i], "--check")) check = 1;
        else if (!strcmp(argv[i], "--seconds") && i + 1 < argc) seconds = strtod(argv[++i], NULL);
        else return usage();
    }
    if (!(seconds > 0 && seconds <= 60)) return usage();
    if (check) seconds = CHECK_SECONDS;
    report = mmap(NULL, sizeof *report, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (report == MAP_FAILED) {
        perror("bench_isa_rates: mmap");
        return 1;
    }
    unsigned flags = cpu_flags();
    row_result res[ROW_COUNT];
    int failed = 0;
    for (int i = 0; i < ROW_COUNT; i++) {
        res[i] = run_row(&rows[i], flags, seconds);
        failed |= res[i].status == ROW_WRONG || res[i].status == ROW_TIMED_OUT;
    }
    char model[256];
    cpu_model(model, sizeof model);
    if (json) print_json(model, flags, seconds, res);
    else print_table(model, flags, seconds, res);
    return check && failed;
}
