#include "hetsched/util/fixed_math.h"

#include <sleef.h>

namespace hetsched {

double FixedExp(double x) { return Sleef_cinz_expd1_u10purec(x); }
double FixedLog(double x) { return Sleef_cinz_logd1_u10purec(x); }
double FixedLog1p(double x) { return Sleef_cinz_log1pd1_u10purec(x); }
double FixedLog10(double x) { return Sleef_cinz_log10d1_u10purec(x); }
double FixedCos(double x) { return Sleef_cinz_cosd1_u10purec(x); }
double FixedPow(double x, double y) { return Sleef_cinz_powd1_u10purec(x, y); }

}  // namespace hetsched
