/* nccl_plan.h -- the host-side decisions of libscan_nccl_sort (nccl.h): which
 * samples a rank contributes, the splitters, where a splitter cuts a rank's
 * sorted keys, and who receives what. Plain C, no CUDA, no NCCL: the CPU
 * tests (tests/nccl/test_nccl_plan.c) run it without a GPU, and every rank
 * runs the same code on the same gathered data, so all ranks agree.
 *
 * The order. Keys are compared as their mapped bits (sort.h's total order,
 * widened to 64 bits, complemented for a descending sort), and ties by
 * (rank, position in the rank's locally sorted keys). The local sort is
 * stable, so that position order is the input order: (key, rank, position)
 * is the stable order of the concatenation of the shards, and a total order
 * in which every element is distinct. Splitters are such triples, so N equal
 * keys still split into even parts (a splitter on the key alone would send
 * them all to one rank). */
#ifndef LIBSCAN_NCCL_PLAN_H
#define LIBSCAN_NCCL_PLAN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Samples a rank contributes (at most; fewer when it has fewer keys). More
 * samples, finer splitters: the bound of libscan__np_capacity() below is
 * about total/N * (1 + 3 N / S) with S this figure; 2048 keeps it within
 * 1.2 % of an even share at 8 ranks while the gathered samples (N * S * 24
 * bytes) and their host sort stay small (a merge of the ranks' sorted
 * samples: 4 ranks, 0.15 ms). */
#define LIBSCAN__NP_SAMPLES 2048

/* Words of a rank's sample header, gathered before its samples: the key
 * count, the sample count, and the call's shape (dtype, value bytes,
 * direction), so that every rank sees a mismatch and all refuse together. */
#define LIBSCAN__NP_HEADER 4

typedef struct libscan__np_triple {
    uint64_t key;  /* mapped bits */
    uint64_t rank;
    uint64_t pos;  /* position in the rank's locally sorted keys */
} libscan__np_triple_t;

/* Inline, and host-and-device under nvcc: the sample kernel
 * (nccl_kernels.cu) and the host's splitter choice use these two. */
#ifdef __CUDACC__
#define LIBSCAN__NP_HD __host__ __device__
#else
#define LIBSCAN__NP_HD
#endif

/* The samples a rank of n keys contributes: min(n, LIBSCAN__NP_SAMPLES). */
static inline LIBSCAN__NP_HD size_t libscan__np_num_samples(size_t n) {
    return n < LIBSCAN__NP_SAMPLES ? n : LIBSCAN__NP_SAMPLES;
}

/* Position of sample j of s in n sorted keys: the midpoint of the j-th of s
 * equal parts, floor((2j + 1) n / (2 s)); in [0, n). (2j + 1) n < 2 s n <=
 * 2^12 * 2^40: no overflow in 64 bits. */
static inline LIBSCAN__NP_HD size_t libscan__np_sample_pos(size_t n, size_t s, size_t j) {
    return (size_t)(((uint64_t)(2 * j + 1) * (uint64_t)n) / (2 * (uint64_t)s));
}

/* -1, 0, 1: the order of two triples (key, then rank, then position). */
int libscan__np_cmp(const libscan__np_triple_t *a, const libscan__np_triple_t *b);

/* Picks nranks - 1 splitters from the samples of every rank (sorted here in
 * place): splitter d-1 is where destination d starts. counts[q] = the keys
 * of rank q; rank q's samples are libscan__np_num_samples(counts[q]) of the
 * array, each standing for counts[q] / that many keys. Splitter d-1 is the
 * first sample whose estimated number of keys below it reaches d * total /
 * nranks; where none does, {UINT64_MAX, UINT64_MAX, UINT64_MAX}, after every
 * key. Splitters never decrease. */
void libscan__np_pick_splitters(libscan__np_triple_t *samples, size_t nsamples, const uint64_t *counts, int nranks,
                                libscan__np_triple_t *splitters);

/* Where splitter sp cuts the locally sorted keys of rank `rank`: the number
 * of them that come before it. [lo, hi) are the positions of the keys whose
 * mapped bits equal sp->key (lower and upper bound). Keys equal to the
 * splitter's come before it when their rank is smaller, or on the
 * splitter's own rank when their position is smaller. */
size_t libscan__np_cut(const libscan__np_triple_t *sp, int rank, size_t lo, size_t hi);

/* Who receives what. rows: nranks rows of nranks + 1 words, gathered from
 * every rank: row q = {capacity of q, keys q sends to rank 0, .., to rank
 * nranks-1}. For rank `rank`: recv_off[q] = where the keys from q start in
 * its receive buffer (ranks in order), *recv_total = their sum, *need_max =
 * the largest receive count of any rank. Returns 1 when some rank would
 * receive more than its capacity (then every rank returns 1: they all see
 * every row), else 0. */
int libscan__np_exchange(const uint64_t *rows, int nranks, int rank, uint64_t *recv_off, uint64_t *recv_total,
                         uint64_t *need_max);

/* The received runs are merged when there are 2 to this many of them (the
 * merge's table of runs is this long); else sorted again. */
#define LIBSCAN__NP_MAX_MERGE_RUNS 64

/* Aligned receive slots. NCCL copies at full speed only between 16-byte
 * aligned addresses (4 ranks x 2^29 u32 keys: 8 ms exchanged from and to
 * wherever the pieces fell, 5 ms aligned). A piece's start in the sender's
 * sorted keys falls anywhere, so the sender sends from the 16-byte boundary
 * at or before it (the up to 15 bytes before it are its other pieces' keys:
 * read, never used), and the receiver receives each piece into a slot of its
 * own that starts on a 16-byte boundary, the piece `skip` bytes in. Every
 * rank derives every slot from the gathered rows, so sender and receiver
 * agree. A receiver's buffer needs libscan__np_slot_slack() bytes beyond its
 * keys (or values) for the slots' padding. */
#define LIBSCAN__NP_ALIGN 16
static inline size_t libscan__np_slot_slack(int nranks) { return 2 * (size_t)LIBSCAN__NP_ALIGN * (size_t)nranks; }

/* Where the piece that rank src sends to rank dst starts in src's sorted
 * keys: the keys src sends to the ranks before dst (rows as above). */
uint64_t libscan__np_piece_start(const uint64_t *rows, int nranks, int src, int dst);

/* The non-empty pieces rank dst receives, its own included: the runs it merges. */
int libscan__np_runs(const uint64_t *rows, int nranks, int dst);

/* The merge's rounds of pairwise merges for `runs` runs: ceil(log2(runs)). */
int libscan__np_rounds(int runs);

/* Whether rank dst receives into aligned slots: only when it merges (merge =
 * every rank merges, 2 to LIBSCAN__NP_MAX_MERGE_RUNS runs; a sort again
 * needs the runs back to back) and the buffer they land in has room: the
 * alternate buffers (sized with the slack) when the rounds are odd, else
 * the outputs, of dst's capacity, for keys of key_bytes and values of
 * value_bytes (0: none). */
int libscan__np_slotted(const uint64_t *rows, int nranks, int dst, size_t key_bytes, size_t value_bytes, int merge);

/* Rank dst's receive slots for elements of es bytes: for every src with a
 * piece for dst, other than dst itself, at[src] = the slot's byte offset in
 * the receive buffer (a multiple of LIBSCAN__NP_ALIGN), skip[src] = where
 * the piece starts in it (its start's byte offset in src's keys, modulo
 * LIBSCAN__NP_ALIGN: what the sender sends before it). The slots follow
 * each other in rank order; returns the bytes they take, at most the pieces'
 * bytes plus libscan__np_slot_slack(). at and skip of the others are 0. */
size_t libscan__np_slots(const uint64_t *rows, int nranks, int dst, size_t es, uint64_t *at, uint64_t *skip);

/* A capacity every rank may give that the sort never exceeds, for `total`
 * keys over nranks ranks however the keys are distributed among and within
 * the ranks: ceil(total / nranks) + 3 ceil(total / S) + 4 nranks + 2 with
 * S = LIBSCAN__NP_SAMPLES (nccl_plan.c derives it), at most total. */
uint64_t libscan__np_capacity(uint64_t total, int nranks);

#ifdef __cplusplus
}
#endif
#endif
