// Exact rational arithmetic with a Fraction struct: a normalizing
// constructor, operators taking and returning structs by value, a static
// readonly Zero/One (a static constructor in a beforefieldinit class),
// comparisons, checked long arithmetic that overflows into a caught
// exception, harmonic numbers, continued fractions of a ratio through an
// out parameter, Egyptian fractions built with StringBuilder, and the
// Stern-Brocot search for the best approximation of pi's digits.
using System;
using System.Text;

struct Fraction
{
    public readonly long Num, Den;

    public static readonly Fraction Zero = new Fraction(0, 1);
    public static readonly Fraction One = new Fraction(1, 1);

    public Fraction(long num, long den)
    {
        if (den == 0) throw new DivideByZeroException();
        if (den < 0) { num = -num; den = -den; }
        long g = Gcd(num < 0 ? -num : num, den);
        Num = num / g;
        Den = den / g;
    }

    static long Gcd(long a, long b)
    {
        while (b != 0) { long t = a % b; a = b; b = t; }
        return a == 0 ? 1 : a;
    }

    public static Fraction operator +(Fraction a, Fraction b)
    {
        long g = Gcd(a.Den, b.Den);
        return new Fraction(checked(a.Num * (b.Den / g) + b.Num * (a.Den / g)), checked(a.Den / g * b.Den));
    }

    public static Fraction operator -(Fraction a) { return new Fraction(-a.Num, a.Den); }
    public static Fraction operator -(Fraction a, Fraction b) { return a + -b; }

    public static Fraction operator *(Fraction a, Fraction b)
    {
        return new Fraction(checked(a.Num * b.Num), checked(a.Den * b.Den));
    }

    public static Fraction operator /(Fraction a, Fraction b) { return a * new Fraction(b.Den, b.Num); }

    public static bool operator <(Fraction a, Fraction b) { return checked(a.Num * b.Den) < checked(b.Num * a.Den); }
    public static bool operator >(Fraction a, Fraction b) { return b < a; }

    public bool IsZero { get { return Num == 0; } }

    public string Text()
    {
        return Den == 1 ? Num.ToString() : Num.ToString() + "/" + Den.ToString();
    }

    public long Floor()
    {
        long q = Num / Den;
        return Num < 0 && q * Den != Num ? q - 1 : q;
    }
}

static class Program
{
    static Fraction Harmonic(int n)
    {
        Fraction h = Fraction.Zero;
        for (int i = 1; i <= n; i++) h = h + new Fraction(1, i);
        return h;
    }

    static int ContinuedFraction(Fraction f, out string terms)
    {
        StringBuilder sb = new StringBuilder();
        sb.Append('[');
        int n = 0;
        while (true)
        {
            long a = f.Floor();
            sb.Append(a);
            n++;
            Fraction rest = f - new Fraction(a, 1);
            if (rest.IsZero) break;
            sb.Append(n == 1 ? "; " : ", ");
            f = Fraction.One / rest;
        }
        terms = sb.Append(']').ToString();
        return n;
    }

    static string Egyptian(Fraction f)
    {
        StringBuilder sb = new StringBuilder();
        while (!f.IsZero)
        {
            long d = (f.Den + f.Num - 1) / f.Num;
            Fraction unit = new Fraction(1, d);
            if (sb.Length > 0) sb.Append(" + ");
            sb.Append(unit.Text());
            f = f - unit;
        }
        return sb.ToString();
    }

    static Fraction Approximate(Fraction target, long maxDen)
    {
        long ln = 0, ld = 1, hn = 1, hd = 0;
        Fraction best = Fraction.Zero;
        long bestErr = 0;
        while (true)
        {
            long mn = ln + hn, md = ld + hd;
            if (md > maxDen) break;
            Fraction m = new Fraction(mn, md);
            // |m - target| = err / (md * target.Den)
            long err = Math.Abs(mn * target.Den - target.Num * md);
            if (best.IsZero || err * best.Den < bestErr * md)
            {
                best = m;
                bestErr = err;
            }
            if (m < target) { ln = mn; ld = md; }
            else if (m > target) { hn = mn; hd = md; }
            else break;
        }
        return best;
    }

    static int Main()
    {
        Fraction a = new Fraction(6, -8), b = new Fraction(5, 12);
        Console.WriteLine("a = " + a.Text() + ", b = " + b.Text());
        Console.WriteLine("a + b = " + (a + b).Text() + ", a - b = " + (a - b).Text());
        Console.WriteLine("a * b = " + (a * b).Text() + ", a / b = " + (a / b).Text());
        Console.WriteLine("a < b: " + (a < b).ToString() + ", floor(a) = " + a.Floor().ToString());

        for (int n = 1; n <= 10; n++)
            Console.WriteLine("H(" + n.ToString() + ") = " + Harmonic(n).Text());
        int last = 10;
        try
        {
            for (last = 20; last < 100; last += 5) Harmonic(last);
            Console.WriteLine("no overflow?");
        }
        catch (OverflowException)
        {
            Console.WriteLine("H(" + last.ToString() + ") no longer fits in longs");
        }

        string[] ratios = { "415/93", "649/200", "-7/3", "1/1", "103993/33102", "13/8" };
        int totalTerms = 0;
        foreach (string r in ratios)
        {
            int slash = r.IndexOf('/');
            Fraction f = new Fraction(long.Parse(r.Substring(0, slash)), long.Parse(r.Substring(slash + 1)));
            string terms;
            totalTerms += ContinuedFraction(f, out terms);
            Console.WriteLine(r + " = " + terms);
        }

        Fraction[] egypt = { new Fraction(4, 13), new Fraction(5, 6), new Fraction(7, 15), new Fraction(2, 3) };
        foreach (Fraction f in egypt)
            Console.WriteLine(f.Text() + " = " + Egyptian(f));

        Fraction pi = new Fraction(31415926535L, 10000000000L);
        long[] limits = new long[3];
        limits[0] = 10; limits[1] = 1000; limits[2] = 100000;
        foreach (long lim in limits)
            Console.WriteLine("best below " + lim.ToString() + ": " + Approximate(pi, lim).Text());

        try
        {
            Fraction bad = new Fraction(1, 0);
            Console.WriteLine(bad.Text());
        }
        catch (DivideByZeroException)
        {
            Console.WriteLine("1/0 is refused");
        }
        Fraction z = default(Fraction);
        Console.WriteLine("default fraction: " + z.Num.ToString() + "/" + z.Den.ToString() + ", One is " + Fraction.One.Text());
        return totalTerms;
    }
}
