/* nccl_common.c -- what both entry files of libscan_nccl share: NCCL types,
 * results and the communicator's shape (nccl_internal.h). */
#include "nccl/nccl_internal.h"

ncclDataType_t libscan__nccl_type(libscan_dtype_t dtype) {
    switch (dtype) {
    case LIBSCAN_U32: return ncclUint32;
    case LIBSCAN_I32: return ncclInt32;
    case LIBSCAN_U64: return ncclUint64;
    case LIBSCAN_I64: return ncclInt64;
    case LIBSCAN_F32: return ncclFloat32;
    case LIBSCAN_F64: return ncclFloat64;
    case LIBSCAN_U8:
    case LIBSCAN_U16: break;
    }
    return ncclNumTypes;
}

libscan_status_t libscan__nccl_status(ncclResult_t r) {
    return r == ncclSuccess ? LIBSCAN_SUCCESS : LIBSCAN_ERROR_NCCL;
}

libscan_status_t libscan__nccl_comm(ncclComm_t comm, int *rank, int *nranks) {
    if (!comm) return LIBSCAN_ERROR_NULL_POINTER;
    if (ncclCommUserRank(comm, rank) != ncclSuccess || ncclCommCount(comm, nranks) != ncclSuccess)
        return LIBSCAN_ERROR_NCCL;
    if (*nranks < 1 || *rank < 0 || *rank >= *nranks) return LIBSCAN_ERROR_NCCL;
    return LIBSCAN_SUCCESS;
}
