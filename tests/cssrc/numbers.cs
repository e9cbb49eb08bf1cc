// Number theory: a sieve of Eratosthenes on a bool array, recursive gcd
// and extended gcd (returning an array), modular exponentiation on longs,
// Collatz chains with a cache, perfect and amicable numbers, integer
// square roots checked against Math.Sqrt, digit sums with div/rem, and
// checked arithmetic that overflows (factorials), caught and reported.
using System;

static class NumberTheory
{
    public static bool[] Sieve(int n)
    {
        bool[] composite = new bool[n + 1];
        composite[0] = composite[1] = true;
        for (int i = 2; i * i <= n; i++)
        {
            if (composite[i]) continue;
            for (int j = i * i; j <= n; j += i) composite[j] = true;
        }
        return composite;
    }

    public static long Gcd(long a, long b)
    {
        return b == 0 ? (a < 0 ? -a : a) : Gcd(b, a % b);
    }

    // ExtGcd returns {g, x, y} with a*x + b*y = g.
    public static long[] ExtGcd(long a, long b)
    {
        if (b == 0)
        {
            long[] r = new long[3];
            r[0] = a; r[1] = 1; r[2] = 0;
            return r;
        }
        long[] s = ExtGcd(b, a % b);
        long x = s[2];
        long y = s[1] - (a / b) * s[2];
        s[1] = x;
        s[2] = y;
        return s;
    }

    public static long ModPow(long b, long e, long m)
    {
        long result = 1;
        b %= m;
        while (e > 0)
        {
            if ((e & 1) == 1) result = result * b % m;
            b = b * b % m;
            e >>= 1;
        }
        return result;
    }

    public static bool MillerRabin(long n)
    {
        if (n < 2) return false;
        if (n % 2 == 0) return n == 2;
        long d = n - 1;
        int s = 0;
        while (d % 2 == 0) { d /= 2; s++; }
        for (int i = 0; i < 4; i++)
        {
            long a = 2 + i * 3 % (n - 2 > 0 ? n - 2 : 1);
            if (a >= n) continue;
            long x = ModPow(a, d, n);
            if (x == 1 || x == n - 1) continue;
            bool witness = true;
            for (int r = 1; r < s; r++)
            {
                x = x * x % n;
                if (x == n - 1) { witness = false; break; }
            }
            if (witness) return false;
        }
        return true;
    }

    static int[] collatzCache;

    public static int Collatz(long n)
    {
        if (collatzCache == null) collatzCache = new int[10000];
        if (n < collatzCache.Length && collatzCache[n] != 0) return collatzCache[n];
        int steps = n == 1 ? 0 : 1 + Collatz(n % 2 == 0 ? n / 2 : 3 * n + 1);
        if (n < collatzCache.Length) collatzCache[n] = steps;
        return steps;
    }

    public static int DivisorSum(int n)
    {
        int sum = 1;
        int r = (int)Math.Sqrt(n);
        for (int d = 2; d <= r; d++)
        {
            if (n % d != 0) continue;
            sum += d;
            if (d != n / d) sum += n / d;
        }
        return n == 1 ? 0 : sum;
    }

    public static long Isqrt(long n)
    {
        if (n < 2) return n;
        long x = n, y = (x + 1) / 2;
        while (y < x)
        {
            x = y;
            y = (x + n / x) / 2;
        }
        return x;
    }

    public static int DigitSum(long n)
    {
        int s = 0;
        for (n = Math.Abs(n); n > 0; n /= 10) s += (int)(n % 10);
        return s;
    }

    public static long Factorial(int n)
    {
        long f = 1;
        for (int i = 2; i <= n; i++) f = checked(f * i);
        return f;
    }
}

static class Program
{
    static string S(long v) { return ((object)v).ToString(); }

    static int Main()
    {
        bool[] composite = NumberTheory.Sieve(1000);
        int count = 0, last = 0, twins = 0;
        for (int i = 2; i <= 1000; i++)
        {
            if (composite[i]) continue;
            count++;
            if (i - last == 2) twins++;
            last = i;
        }
        Console.WriteLine("primes below 1000: " + count);
        Console.WriteLine("twin pairs: " + twins);
        Console.WriteLine("largest: " + last);

        long[][] pairs = new long[4][];
        pairs[0] = new long[] { 240, 46 };
        pairs[1] = new long[] { 1071, 462 };
        pairs[2] = new long[] { -84, 36 };
        pairs[3] = new long[] { 17, 5 };
        foreach (long[] p in pairs)
        {
            long[] e = NumberTheory.ExtGcd(p[0], p[1]);
            Console.Write("gcd(" + S(p[0]) + ", " + S(p[1]) + ") = " + S(NumberTheory.Gcd(p[0], p[1])));
            Console.Write("; " + S(e[1]) + "*" + S(p[0]) + " + ");
            Console.WriteLine(S(e[2]) + "*" + S(p[1]) + " = " + S(e[1] * p[0] + e[2] * p[1]));
        }

        Console.WriteLine("2^100 mod 1000000007 = " + NumberTheory.ModPow(2, 100, 1000000007));
        Console.WriteLine("3^(10^18) mod 998244353 = " + NumberTheory.ModPow(3, 1000000000000000000L, 998244353));
        string[] candidates = { "1", "2", "97", "561", "7919", "1000003", "999999937", "3000000021" };
        foreach (string c in candidates)
            Console.WriteLine(c + (NumberTheory.MillerRabin(long.Parse(c)) ? " prime" : " composite"));

        int best = 1, bestSteps = 0;
        for (int n = 1; n < 3000; n++)
        {
            int steps = NumberTheory.Collatz(n);
            if (steps > bestSteps) { best = n; bestSteps = steps; }
        }
        Console.Write("longest Collatz chain below 3000: " + best);
        Console.WriteLine(", steps " + bestSteps);

        for (int n = 2; n < 10000; n++)
        {
            int s = NumberTheory.DivisorSum(n);
            if (s == n) Console.WriteLine("perfect: " + n);
            else if (s > n && s < 10000 && NumberTheory.DivisorSum(s) == n)
                Console.WriteLine("amicable: " + S(n) + " and " + S(s));
        }

        int mismatches = 0;
        for (long n = 0; n < 100000; n += 7)
        {
            long r = NumberTheory.Isqrt(n);
            if (r != (long)Math.Sqrt(n) || r * r > n || (r + 1) * (r + 1) <= n) mismatches++;
        }
        Console.WriteLine("isqrt mismatches: " + mismatches);
        Console.WriteLine("isqrt(2^62) = " + NumberTheory.Isqrt(4611686018427387904L));
        Console.WriteLine("digit sum of 9876543210: " + NumberTheory.DigitSum(9876543210L));
        Console.WriteLine("digit sum of -1999: " + NumberTheory.DigitSum(-1999));

        int n2 = 15;
        try
        {
            for (; n2 <= 25; n2++)
                Console.WriteLine(S(n2) + "! = " + S(NumberTheory.Factorial(n2)));
        }
        catch (OverflowException)
        {
            Console.WriteLine(S(n2) + "! overflows a long");
        }
        return count % 256;
    }
}
