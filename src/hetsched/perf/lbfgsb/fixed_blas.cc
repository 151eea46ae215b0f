// The BLAS and LAPACK routines L-BFGS-B calls, in fixed arithmetic (fixed_blas.h says why).
// Column-major indexing as in Fortran: element (i, j), 0-based here, of a matrix with leading
// dimension ld is at [i + j * ld]. Compiled with -ffp-contract=off (src/hetsched/CMakeLists.txt).
#include "hetsched/perf/lbfgsb/fixed_blas.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace {

// The Fortran start of a strided vector: a negative increment walks it from its far end.
ptrdiff_t Start(int n, int inc) { return inc < 0 ? static_cast<ptrdiff_t>(-(n - 1)) * inc : 0; }

char Upper(const char* c) { return (*c >= 'a' && *c <= 'z') ? static_cast<char>(*c - 'a' + 'A') : *c; }

double& At(double* a, int ld, int i, int j) { return a[i + static_cast<ptrdiff_t>(j) * ld]; }
double At(const double* a, int ld, int i, int j) { return a[i + static_cast<ptrdiff_t>(j) * ld]; }

}  // namespace

extern "C" {

double ddot_(const int* n, const double* x, const int* incx, const double* y, const int* incy) {
  double sum = 0;
  ptrdiff_t ix = Start(*n, *incx), iy = Start(*n, *incy);
  for (int i = 0; i < *n; ++i, ix += *incx, iy += *incy) sum += x[ix] * y[iy];
  return sum;
}

void daxpy_(const int* n, const double* a, const double* x, const int* incx, double* y, const int* incy) {
  if (*a == 0) return;
  ptrdiff_t ix = Start(*n, *incx), iy = Start(*n, *incy);
  for (int i = 0; i < *n; ++i, ix += *incx, iy += *incy) y[iy] += *a * x[ix];
}

void dcopy_(const int* n, const double* x, const int* incx, double* y, const int* incy) {
  ptrdiff_t ix = Start(*n, *incx), iy = Start(*n, *incy);
  for (int i = 0; i < *n; ++i, ix += *incx, iy += *incy) y[iy] = x[ix];
}

void dscal_(const int* n, const double* a, double* x, const int* incx) {
  if (*incx <= 0) return;
  ptrdiff_t ix = 0;
  for (int i = 0; i < *n; ++i, ix += *incx) x[ix] = *a * x[ix];
}

void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info, size_t /*uplo_len*/) {
  const char u = Upper(uplo);
  const int size = *n, ld = *lda;
  *info = 0;
  if (u != 'U' && u != 'L')
    *info = -1;
  else if (size < 0)
    *info = -2;
  else if (ld < std::max(1, size))
    *info = -4;
  if (*info != 0) return;
  // LAPACK's dpotf2: column (upper) or row (lower) j from the j before it, its diagonal by a
  // ddot, the rest of it by a dgemv (transposed for upper: a dot product per column; plain for
  // lower: one column of the finished part at a time) and a dscal by the pivot's reciprocal.
  const bool upper = u == 'U';
  for (int j = 0; j < size; ++j) {
    double dot = 0;
    for (int k = 0; k < j; ++k) {
      const double v = upper ? At(a, ld, k, j) : At(a, ld, j, k);
      dot += v * v;
    }
    double ajj = At(a, ld, j, j) - dot;
    if (ajj <= 0 || std::isnan(ajj)) {
      At(a, ld, j, j) = ajj;
      *info = j + 1;
      return;
    }
    ajj = std::sqrt(ajj);
    At(a, ld, j, j) = ajj;
    if (upper) {
      for (int c = j + 1; c < size; ++c) {
        double sum = 0;
        for (int k = 0; k < j; ++k) sum += At(a, ld, k, c) * At(a, ld, k, j);
        At(a, ld, j, c) += -1.0 * sum;
      }
    } else {
      for (int k = 0; k < j; ++k) {
        const double factor = -1.0 * At(a, ld, j, k);
        for (int r = j + 1; r < size; ++r) At(a, ld, r, j) += factor * At(a, ld, r, k);
      }
    }
    const double scale = 1.0 / ajj;
    for (int c = j + 1; c < size; ++c) (upper ? At(a, ld, j, c) : At(a, ld, c, j)) *= scale;
  }
}

void dtrtrs_(const char* uplo, const char* trans, const char* diag, const int* n, const int* nrhs,
             const double* a, const int* lda, double* b, const int* ldb, int* info, size_t /*uplo_len*/,
             size_t /*trans_len*/, size_t /*diag_len*/) {
  const char u = Upper(uplo), t = Upper(trans), d = Upper(diag);
  const int size = *n, cols = *nrhs, la = *lda, lb = *ldb;
  *info = 0;
  if (u != 'U' && u != 'L')
    *info = -1;
  else if (t != 'N' && t != 'T' && t != 'C')
    *info = -2;
  else if (d != 'N' && d != 'U')
    *info = -3;
  else if (size < 0)
    *info = -4;
  else if (cols < 0)
    *info = -5;
  else if (la < std::max(1, size))
    *info = -7;
  else if (lb < std::max(1, size))
    *info = -9;
  if (*info != 0 || size == 0) return;
  const bool unit = d == 'U', upper = u == 'U', transposed = t != 'N';
  if (!unit) {
    for (int i = 0; i < size; ++i) {
      if (At(a, la, i, i) == 0) {
        *info = i + 1;
        return;
      }
    }
  }
  // The reference dtrsm's loops (side 'L', alpha 1).
  for (int j = 0; j < cols; ++j) {
    if (!transposed) {
      // A x = b: back substitution (upper) or forward (lower), column by column of A.
      for (int step = 0; step < size; ++step) {
        const int k = upper ? size - 1 - step : step;
        double& bk = At(b, lb, k, j);
        if (bk == 0) continue;
        if (!unit) bk /= At(a, la, k, k);
        const int lo = upper ? 0 : k + 1, hi = upper ? k : size;
        for (int i = lo; i < hi; ++i) At(b, lb, i, j) -= bk * At(a, la, i, k);
      }
    } else {
      // A^T x = b: forward (upper) or back (lower) substitution, row by row of A^T.
      for (int step = 0; step < size; ++step) {
        const int i = upper ? step : size - 1 - step;
        double v = At(b, lb, i, j);
        const int lo = upper ? 0 : i + 1, hi = upper ? i : size;
        for (int k = lo; k < hi; ++k) v -= At(a, la, k, i) * At(b, lb, k, j);
        if (!unit) v /= At(a, la, i, i);
        At(b, lb, i, j) = v;
      }
    }
  }
}

}  // extern "C"
