/* status.c -- status strings, dtype/op names and the version: the small
 * host-only helpers of the C API. */
#include "libscan/libscan.h"

const char *libscan_status_string(libscan_status_t status) {
    switch (status) {
    case LIBSCAN_SUCCESS: return "success";
    case LIBSCAN_ERROR_NULL_POINTER: return "a required pointer argument is NULL";
    case LIBSCAN_ERROR_INVALID_DTYPE: return "unknown element type (libscan_dtype_t)";
    case LIBSCAN_ERROR_INVALID_OP: return "unknown operator (libscan_op_t)";
    case LIBSCAN_ERROR_INVALID_ARGUMENT: return "inconsistent arguments";
    case LIBSCAN_ERROR_TEMP_TOO_SMALL: return "temporary storage is smaller than the call's *_temp_bytes() asks for";
    case LIBSCAN_ERROR_OVERLAP: return "buffers overlap but are not identical";
    case LIBSCAN_ERROR_INVALID_POINTER: return "pointer is not device-accessible or not aligned to its element size";
    case LIBSCAN_ERROR_TOO_LARGE: return "element count exceeds LIBSCAN_MAX_COUNT";
    case LIBSCAN_ERROR_OUT_OF_MEMORY: return "out of device memory for temporary storage";
    case LIBSCAN_ERROR_CUDA: return "a CUDA call or kernel launch failed";
    case LIBSCAN_ERROR_NCCL: return "an NCCL call failed";
    case LIBSCAN_ERROR_CAPACITY: return "an output buffer's capacity is smaller than what the call must write there";
    }
    return "unknown libscan status code";
}

size_t libscan_dtype_size(libscan_dtype_t dtype) {
    switch (dtype) {
    case LIBSCAN_U32:
    case LIBSCAN_I32:
    case LIBSCAN_F32: return 4;
    case LIBSCAN_U64:
    case LIBSCAN_I64:
    case LIBSCAN_F64: return 8;
    case LIBSCAN_U8: return 1;
    case LIBSCAN_U16: return 2;
    }
    return 0;
}

const char *libscan_dtype_name(libscan_dtype_t dtype) {
    switch (dtype) {
    case LIBSCAN_U32: return "u32";
    case LIBSCAN_I32: return "i32";
    case LIBSCAN_U64: return "u64";
    case LIBSCAN_I64: return "i64";
    case LIBSCAN_F32: return "f32";
    case LIBSCAN_F64: return "f64";
    case LIBSCAN_U8: return "u8";
    case LIBSCAN_U16: return "u16";
    }
    return "unknown";
}

const char *libscan_op_name(libscan_op_t op) {
    switch (op) {
    case LIBSCAN_OP_SUM: return "sum";
    case LIBSCAN_OP_MIN: return "min";
    case LIBSCAN_OP_MAX: return "max";
    }
    return "unknown";
}

int libscan_version(void) { return LIBSCAN_VERSION; }

const char *libscan_version_string(void) { return LIBSCAN_VERSION_STRING; }
