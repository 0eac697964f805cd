/* shims.h -- C-callable entry points of the tests' CUDA code (the .cu files
 * in this directory). Each returns a cudaError_t (as int) from the first
 * CUDA call that failed, cudaSuccess otherwise, or one of the SHIM_ codes
 * below; each allocates, copies and frees its own device memory, and
 * poisons every output buffer (0xFF bytes) before running. */
#ifndef LIBSCAN_TEST_SHIMS_H
#define LIBSCAN_TEST_SHIMS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Returned when guard elements around an output were overwritten. */
#define SHIM_GUARD_CORRUPTED (-1)
/* Returned for a type/mode/size the shim was not built for. */
#define SHIM_UNSUPPORTED (-2)

/* ---- tuning (tuning_shim.cu) ------------------------------------------- */

/* Elements per tile of the device-wide scan for elements of this many
 * bytes (ScanTuning in libscan/cuda/tuning.cuh): block threads x items per
 * thread. Used to pick test sizes around tile boundaries. */
size_t shim_scan_tile_items(size_t element_bytes);
/* The most tiles a scan of such elements may have and still run the
 * mid-size kernel (ScanTuning::kMidMaxTiles; 0: none); larger scans run the
 * large kernel. */
size_t shim_scan_mid_max_tiles(size_t element_bytes);
/* GridTuning's tile (block threads x items per thread) for 4- or 8-byte
 * elements, and the most elements the grid scan takes (tile x max blocks);
 * 0 for other sizes. */
size_t shim_grid_tile_items(size_t element_bytes);
size_t shim_grid_capacity(size_t element_bytes);

/* ---- warp and block collectives (warp_block_shim.cu) -------------------- */

typedef enum shim_type { SHIM_U32_SUM = 0, SHIM_MAT2 = 1 } shim_type_t;

/* WarpScan modes: every warp scans its own 32 consecutive elements. */
typedef enum shim_warp_mode {
    SHIM_WARP_INCL = 0,     /* InclusiveScan(x, op) */
    SHIM_WARP_INCL_AGG = 1, /* InclusiveScan(x, op, aggregate) */
    SHIM_WARP_EXCL = 2,     /* ExclusiveScan(x, op) */
    SHIM_WARP_EXCL_AGG = 3, /* ExclusiveScan(x, op, aggregate) */
    SHIM_WARP_BROADCAST = 4 /* Broadcast(x, w % 32) in warp w */
} shim_warp_mode_t;

/* Runs `warps` warps (several blocks) over h_in[32 * warps]; h_out gets each
 * lane's result, h_agg each lane's aggregate (modes with an aggregate). */
int shim_warp_run(shim_type_t type, shim_warp_mode_t mode, int warps, const void *h_in, void *h_out, void *h_agg);

/* BlockScan modes. Blocked modes: thread t holds items t*N .. t*N+N-1 of a
 * tile; warp-striped modes: items[K][V] as documented in block_scan.cuh
 * (warp w, chunk k, lane l, item v <-> w*32*K*V + k*32*V + l*V + v). */
typedef enum shim_block_mode {
    SHIM_BLOCK_INCL = 0,
    SHIM_BLOCK_INCL_AGG = 1,
    SHIM_BLOCK_EXCL = 2,
    SHIM_BLOCK_EXCL_AGG = 3,
    SHIM_BLOCK_REDUCE = 4,      /* agg = Reduce(items); outputs = inputs */
    SHIM_BLOCK_INCL_PREFIX = 5, /* with a running-total prefix callback */
    SHIM_BLOCK_EXCL_PREFIX = 6,
    SHIM_STRIPED_INCL = 7, /* ScanWarpStriped(exclusive=false), NoBlockPrefix, agg */
    SHIM_STRIPED_EXCL = 8, /* ScanWarpStriped(exclusive=true), NoBlockPrefix, agg */
    SHIM_STRIPED_INCL_PREFIX = 9,
    SHIM_STRIPED_EXCL_PREFIX = 10,
    SHIM_BLOCK_NUM_MODES = 11
} shim_block_mode_t;

/* Items per thread in this mode (N blocked, K*V warp-striped). */
int shim_block_items_per_thread(shim_type_t type, shim_block_mode_t mode);

/* `blocks` blocks of block_threads (32 or 256) threads each loop over `tiles`
 * consecutive tiles of block_threads * items_per_thread elements (block b
 * owns tiles b*tiles .. b*tiles+tiles-1), __syncthreads() between tiles.
 * Without a prefix callback every tile is scanned on its own; with one, the
 * callback starts at *prefix_init and carries the running total from tile to
 * tile of the same block. h_agg[tile * block_threads + thread] receives each
 * thread's aggregate (modes that produce one). */
int shim_block_run(shim_type_t type, int block_threads, shim_block_mode_t mode, int blocks, int tiles,
                   const void *prefix_init, const void *h_in, void *h_out, void *h_agg);

/* ---- device-wide scan through the C++ layer (device_layer_shim.cu) ------ */

/* The monoids of support/monoids.h: mat2_t (16 bytes, one per 16-byte
 * vector), affine_t (8 bytes, two per vector), tri_t (12 bytes, no whole
 * number per vector: DeviceScan's path for such sizes). SHIM_DL_AFFINE_WIDE
 * is affine_t through a caller-chosen 256 x 32 tile (64 KiB of staging:
 * DeviceScan's dynamic shared-memory path). */
typedef enum shim_dl_type {
    SHIM_DL_MAT2 = 0,
    SHIM_DL_AFFINE = 1,
    SHIM_DL_TRI = 2,
    SHIM_DL_AFFINE_WIDE = 3
} shim_dl_type_t;

/* DeviceScan<T>::Shape::kTile for the type; 0 for an unknown type. */
size_t shim_dl_tile_items(shim_dl_type_t type);
/* DeviceScan<T>::kMidMaxTiles for the type (0: no mid-size kernel). */
size_t shim_dl_mid_max_tiles(shim_dl_type_t type);

/* libscan::DeviceScan<T>::run over a device copy of h_in[n]. init: host
 * carry-in or NULL (identity); init_on_device: pass it through d_init
 * instead of (has_init, init); h_total: NULL or receives the carry-out;
 * in_place: out == in. Output guards are checked (SHIM_GUARD_CORRUPTED);
 * SHIM_UNSUPPORTED for an unknown type. */
int shim_dl_scan(shim_dl_type_t type, const void *h_in, void *h_out, size_t n, int exclusive, const void *init,
                 int init_on_device, void *h_total, int in_place);

/* 1 when a max scan of n unsigned elements of element_bytes (4 or 8) on the
 * legacy stream takes a one-launch path on the current device, which never
 * touches temp storage (DeviceScan::plan); 0 when it takes the look-back;
 * -1 for another element size. */
int shim_scan_skips_temp(size_t element_bytes, size_t n);

/* As shim_dl_scan, but straight through GridScan<T>::run (the eager small
 * scan, as DeviceScan<T> tunes it) with a launch handle that asks for the
 * runtime's cudaLaunchCooperativeKernel rather than the driver's
 * cuLaunchCooperativeKernel. SHIM_DL_AFFINE only (8-byte values; n up to
 * 65536); SHIM_UNSUPPORTED for the other types, and where the grid scan
 * does not run on the current device. */
int shim_grid_scan_runtime_launch(shim_dl_type_t type, const void *h_in, void *h_out, size_t n, int exclusive,
                                  const void *init, int init_on_device, void *h_total, int in_place);

/* As shim_grid_scan_runtime_launch, through GridScan<T>::run_with_temp (the
 * barrier exchange that captured small scans run), launched eagerly, with
 * its temp (GridScan::temp_bytes(n)) filled with 0xFF bytes first. */
int shim_grid_scan_with_temp(shim_dl_type_t type, const void *h_in, void *h_out, size_t n, int exclusive,
                             const void *init, int init_on_device, void *h_total, int in_place);

/* The grid scan under stream capture: GridScan<affine_t>::eager() must say
 * no on a capturing stream and yes on it before and after, and
 * GridScan<affine_t>::run must return cudaErrorStreamCaptureUnsupported
 * there without adding anything to the graph. 0 when all of that holds, a
 * CUDA error code when a CUDA call failed, else -1 (eager() wrong), -2
 * (run() did not refuse) or -3 (the captured graph has nodes). */
int shim_grid_scan_refuses_capture(void);

/* DeviceScan::Plan's paths (checked against it in device_layer_shim.cu). */
#define SHIM_PATH_LOOKBACK 0
#define SHIM_PATH_GRID 1          /* eager grid scan: the library's flag table */
#define SHIM_PATH_GRID_CAPTURED 2 /* the same scan, values in temp behind a grid barrier */

/* A float (element_bytes 4) or double (8) sum of h_in[n] (exclusive or not;
 * init: host carry-in or NULL) through DeviceScan<T>::run with caller temp
 * of temp_bytes(n), twice on one non-blocking stream: eagerly, and captured
 * into a CUDA graph (thread-local capture mode). The graph is replayed on
 * other data over temp full of 0xFF bytes, then on h_in again. h_eager and
 * h_captured receive the eager output and the second replay's (n
 * elements), h_totals[0] and [1] their totals, *nodes the number of nodes
 * of the captured graph, paths[0] and [1] the plan's path on the stream
 * before and during the capture (SHIM_PATH_*). SHIM_UNSUPPORTED for another
 * element size. */
int shim_dl_float_sum_eager_and_captured(size_t element_bytes, const void *h_in, size_t n, int exclusive,
                                         const void *init, void *h_eager, void *h_captured, void *h_totals,
                                         size_t *nodes, int paths[2]);

#ifdef __cplusplus
}
#endif
#endif
