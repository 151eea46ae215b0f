// The six BLAS and LAPACK routines L-BFGS-B 3.0 calls (Debian's liblbfgsb: ddot, daxpy, dcopy,
// dscal, dpotrf, dtrtrs), answered by code of fixed arithmetic instead of the system's BLAS.
//
// Why: the system BLAS is OpenBLAS (scripts/setup.sh), which picks its kernels for the CPU it runs
// on; their sums round differently (AVX2 FMA, AVX-512, SSE), so the goodput fit, and a goodput
// policy's decisions with it, differed across CPU generations (docs/goodput.md, "The same bits
// on every CPU").
// These routines keep the reference BLAS's and LAPACK's loop order (ddot sums in index order;
// dpotrf is the unblocked dpotf2; dtrtrs is dtrsm's reference loops), compiled without
// contraction into fused multiply-adds (-ffp-contract=off), so the same inputs give the same bits
// on every x86-64 CPU. liblbfgsb is linked statically and these are bound to it at link time
// with hidden visibility: nothing else in the process (Clp, LibTorch) sees them, and L-BFGS-B
// never reaches the system BLAS. The matrices are tiny (2m x 2m, m = 10), so speed is moot.
//
// Fortran calling convention (gfortran): every argument by address; a CHARACTER argument's
// length comes after the others (size_t), ignored here (each is one letter).
#pragma once

#include <cstddef>

extern "C" {
double ddot_(const int* n, const double* x, const int* incx, const double* y, const int* incy);
void daxpy_(const int* n, const double* a, const double* x, const int* incx, double* y, const int* incy);
void dcopy_(const int* n, const double* x, const int* incx, double* y, const int* incy);
void dscal_(const int* n, const double* a, double* x, const int* incx);
// Cholesky factor of the symmetric positive definite `a` (n x n, leading dimension lda, column
// major): `uplo` 'U' gives a = U^T U in the upper triangle, 'L' a = L L^T in the lower; the other
// triangle is not touched. info: 0, -i for a bad argument i, or k > 0 when the leading minor of
// order k is not positive definite (a(k,k) then holds the non-positive pivot).
void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info, size_t uplo_len);
// Solves op(A) X = B in place (B n x nrhs) for the triangular A: `uplo` 'U'/'L', `trans` 'N' or
// 'T'/'C' (op(A) = A or A^T), `diag` 'N' or 'U' (unit diagonal, not read). info: 0, -i for a bad
// argument i, or k > 0 when a(k,k) is exactly zero (nothing solved).
void dtrtrs_(const char* uplo, const char* trans, const char* diag, const int* n, const int* nrhs,
             const double* a, const int* lda, double* b, const int* ldb, int* info, size_t uplo_len,
             size_t trans_len, size_t diag_len);
}
