// gen.c: arguments for comparing System.Math with glibc (and CoreCLR), and
// glibc's results; see README.md.
// Output lines: k xbits ybits rbits (decimal int64), k = function code.
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <stdlib.h>

static uint64_t s = 0x9E3779B97F4A7C15ull;
static uint64_t next(void) { // splitmix64
  uint64_t z = (s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static double u01(void) { return (next() >> 11) * 0x1p-53; }
static double uni(double lo, double hi) { return lo + (hi - lo) * u01(); }
static double bits(uint64_t b) { double d; memcpy(&d, &b, 8); return d; }
static int64_t ib(double d) { int64_t b; memcpy(&b, &d, 8); return b; }
// a random finite double with a random exponent in [emin, emax] (unbiased exponents)
static double expo(int emin, int emax, int sign) {
  uint64_t m = next() & 0xFFFFFFFFFFFFFull;
  int e = emin + (int)(next() % (uint64_t)(emax - emin + 1));
  double d = bits(((uint64_t)(e + 1023) << 52) | m);
  if (sign && (next() & 1)) d = -d;
  return d;
}
enum { SQRT, ABS, FLOOR, CEIL, ROUND, TRUNC, POW, EXP, LOG, LOG10, SIN, COS, TAN, ATAN, ATAN2, MIN, MAX, NF };

static double input(int k, int i, double *y) {
  int mode = i % 4;
  *y = 0;
  switch (k) {
  case POW:
    switch (mode) {
    case 0: *y = uni(-10, 10); return uni(0, 10);
    case 1: *y = uni(-300, 300); return expo(-3, 3, 0);
    case 2: { double x = expo(-1022, 1023, 0); *y = uni(-1, 1) * 1000.0 / fabs(log2(x) + 1e-300); return x; }
    default: *y = (double)(int)uni(-40, 40); return uni(-20, 20);
    }
  case EXP:
    switch (mode) {
    case 0: return uni(-745, 709.8);
    case 1: return uni(-1, 1);
    case 2: return expo(-60, 3, 1);
    default: return uni(-20, 20);
    }
  case LOG: case LOG10:
    switch (mode) {
    case 0: return expo(-1022, 1023, 0);
    case 1: return uni(0.5, 2);
    case 2: return uni(0, 1000);
    default: return 1 + uni(-1e-6, 1e-6);
    }
  case SIN: case COS: case TAN:
    switch (mode) {
    case 0: return uni(-3.2, 3.2);
    case 1: return uni(-100, 100);
    case 2: return expo(-30, 60, 1);
    default: return uni(-1e6, 1e6);
    }
  case ATAN:
    switch (mode) {
    case 0: return uni(-2, 2);
    case 1: return expo(-30, 60, 1);
    case 2: return uni(-100, 100);
    default: return expo(-1022, 1023, 1);
    }
  case ATAN2:
    switch (mode) {
    case 0: *y = uni(-10, 10); return uni(-10, 10);
    case 1: *y = expo(-30, 30, 1); return expo(-30, 30, 1);
    case 2: *y = uni(-1, 1); return uni(-1, 1);
    default: *y = expo(-1022, 1023, 1); return expo(-1022, 1023, 1);
    }
  case MIN: case MAX:
    *y = uni(-10, 10); return (mode == 0) ? *y : uni(-10, 10);
  default:
    switch (mode) {
    case 0: return uni(-10, 10);
    case 1: return uni(-1e6, 1e6);
    case 2: return expo(-1022, 1023, 1);
    default: return (double)(int)uni(-100, 100) + 0.5 * (next() & 1);
    }
  }
}
static double f(int k, double x, double y) {
  switch (k) {
  case SQRT: return sqrt(x); case ABS: return fabs(x); case FLOOR: return floor(x); case CEIL: return ceil(x);
  case ROUND: return nearbyint(x); case TRUNC: return trunc(x); case POW: return pow(x, y); case EXP: return exp(x);
  case LOG: return log(x); case LOG10: return log10(x); case SIN: return sin(x); case COS: return cos(x);
  case TAN: return tan(x); case ATAN: return atan(x); case ATAN2: return atan2(x, y);
  case MIN: return fmin(x, y); case MAX: return fmax(x, y);
  }
  return 0;
}
int main(int argc, char **argv) {
  int n = atoi(argv[1]);
  uint64_t seed = argc > 2 ? strtoull(argv[2], 0, 0) : 1;
  s ^= seed * 0xD1B54A32D192ED03ull;
  for (int k = 0; k < NF; k++)
    for (int i = 0; i < n; i++) {
      double y, x = input(k, i, &y);
      printf("%d %lld %lld %lld\n", k, (long long)ib(x), (long long)ib(y), (long long)ib(f(k, x, y)));
    }
}
