// Number formatting by hand: Roman numerals both ways (a switch on char
// and a table walk), numbers spelled out in English (recursion over
// thousands groups, string arrays of words), conversions to and from any
// base 2..36 with validation through ArgumentOutOfRangeException and
// FormatException, and thousands separators inserted with Substring.
using System;

static class Roman
{
    static int[] values;
    static string[] symbols;

    static void Init()
    {
        values = new int[13];
        symbols = new string[] { "M", "CM", "D", "CD", "C", "XC", "L", "XL", "X", "IX", "V", "IV", "I" };
        int[] digits = new int[4];
        digits[0] = 9;
        digits[1] = 5;
        digits[2] = 4;
        digits[3] = 1;
        int scale = 1000;
        for (int i = 0; i < 13; i++)
        {
            if (i == 0) { values[0] = 1000; continue; }
            int k = (i - 1) % 4;
            if (k == 0) scale /= 10;
            values[i] = digits[k] * scale;
        }
    }

    public static string To(int n)
    {
        if (n <= 0 || n >= 4000) throw new ArgumentOutOfRangeException("n");
        if (values == null) Init();
        string s = null;
        for (int i = 0; i < values.Length; i++)
        {
            while (n >= values[i])
            {
                s = s + symbols[i];
                n -= values[i];
            }
        }
        return s;
    }

    static int Value(char c)
    {
        switch (c)
        {
            case 'I': return 1;
            case 'V': return 5;
            case 'X': return 10;
            case 'L': return 50;
            case 'C': return 100;
            case 'D': return 500;
            case 'M': return 1000;
            default: throw new FormatException("not a Roman digit: " + c);
        }
    }

    public static int From(string s)
    {
        int total = 0;
        for (int i = 0; i < s.Length; i++)
        {
            int v = Value(s[i]);
            if (i + 1 < s.Length && v < Value(s[i + 1])) total -= v;
            else total += v;
        }
        if (To(total) != s) throw new FormatException("not canonical: " + s);
        return total;
    }
}

static class Words
{
    static string[] small, tens, groups;

    static void Init()
    {
        small = new string[] { "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
        "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen" };
        tens = new string[] { null, null, "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety" };
        groups = new string[] { null, " thousand", " million", " billion" };
    }

    static string Below1000(int n)
    {
        string s = null;
        if (n >= 100)
        {
            s = small[n / 100] + " hundred";
            n %= 100;
            if (n == 0) return s;
            s = s + " and ";
        }
        if (n < 20) return s + small[n];
        s = s + tens[n / 10];
        return n % 10 == 0 ? s : s + "-" + small[n % 10];
    }

    public static string Spell(long n)
    {
        if (small == null) Init();
        if (n == 0) return small[0];
        if (n < 0) return "minus " + Spell(-n);
        return Spell(n, 0);
    }

    static string Spell(long n, int group)
    {
        if (n == 0) return null;
        string rest = Spell(n / 1000, group + 1);
        int part = (int)(n % 1000);
        if (part == 0) return rest;
        string here = Below1000(part) + groups[group];
        return rest == null ? here : rest + (group == 0 && part < 100 ? " and " : ", ") + here;
    }
}

static class Bases
{
    const string digits = "0123456789abcdefghijklmnopqrstuvwxyz";

    public static string To(long n, int b)
    {
        if (b < 2 || b > 36) throw new ArgumentOutOfRangeException("b");
        if (n == 0) return "0";
        bool neg = n < 0;
        string s = null;
        while (n != 0)
        {
            int d = (int)(n % b);
            if (d < 0) d = -d;
            s = digits.Substring(d, 1) + s;
            n /= b;
        }
        return neg ? "-" + s : s;
    }

    public static long From(string s, int b)
    {
        if (b < 2 || b > 36) throw new ArgumentOutOfRangeException("b");
        long n = 0;
        int i = 0;
        bool neg = s.Length > 0 && s[0] == '-';
        if (neg) i = 1;
        if (i == s.Length) throw new FormatException("no digits");
        for (; i < s.Length; i++)
        {
            int d = digits.IndexOf(s.Substring(i, 1).ToLowerInvariant());
            if (d < 0 || d >= b) throw new FormatException("bad digit " + s[i]);
            n = checked(n * b + d);
        }
        return neg ? -n : n;
    }

    public static string Group(long n)
    {
        string s = ((object)n).ToString();
        int start = s[0] == '-' ? 1 : 0;
        for (int i = s.Length - 3; i > start; i -= 3)
            s = s.Substring(0, i) + "," + s.Substring(i);
        return s;
    }
}

static class Program
{
    static long[] Longs(string s)
    {
        int n = 1;
        foreach (char c in s) if (c == ' ') n++;
        long[] a = new long[n];
        int k = 0, start = 0;
        for (int i = 0; i <= s.Length; i++)
        {
            if (i < s.Length && s[i] != ' ') continue;
            a[k++] = long.Parse(s.Substring(start, i - start));
            start = i + 1;
        }
        return a;
    }

    static int Main()
    {
        int check = 0;
        long[] years = Longs("1987 2024 3999 444");
        foreach (int y in years)
        {
            string r = Roman.To(y);
            Console.Write(y);
            Console.WriteLine(" = " + r);
            check += Roman.From(r);
        }
        for (int n = 1; n < 4000; n++)
            if (Roman.From(Roman.To(n)) != n) Console.WriteLine("round trip failed at " + n);
        string[] romans = { "XLII", "MCMXCIX", "IIII", "IC", "MMXXV", "ABC" };
        foreach (string r in romans)
        {
            try
            {
                Console.WriteLine(r + " = " + Roman.From(r));
            }
            catch (FormatException e)
            {
                Console.WriteLine(r + ": " + e.Message);
            }
        }
        try
        {
            Roman.To(0);
        }
        catch (ArgumentOutOfRangeException)
        {
            Console.WriteLine("no Roman numeral for 0");
        }

        long[] numbers = Longs("0 7 13 40 99 100 101 342 1000 1001 12345 1000000 2147483647 -65");
        foreach (long n in numbers)
            Console.WriteLine(Bases.Group(n) + ": " + Words.Spell(n));

        long[] values = Longs("255 -255 1000000007 9223372036854775807");
        long[] bases = Longs("2 8 16 36");
        foreach (long v in values)
        {
            string line = Bases.Group(v) + ":";
            foreach (int b in bases)
            {
                string s = Bases.To(v, b);
                if (Bases.From(s, b) != v) line = line + " MISMATCH";
                line = line + " " + s;
            }
            Console.WriteLine(line);
        }
        string[] inputs = { "ff", "FF", "zz", "-101", "12", "x".Substring(1), "-", "7fffffffffffffff", "8000000000000000" };
        long[] inputBases = Longs("16 16 36 2 2 10 10 16 16");
        for (int i = 0; i < inputs.Length; i++)
        {
            try
            {
                long v = Bases.From(inputs[i], (int)inputBases[i]);
                Console.WriteLine("'" + inputs[i] + "' base " + inputBases[i] + " = " + Bases.Group(v));
            }
            catch (FormatException e)
            {
                Console.WriteLine("'" + inputs[i] + "': " + e.Message);
            }
            catch (OverflowException)
            {
                Console.WriteLine("'" + inputs[i] + "': too large");
            }
        }
        return check % 256;
    }
}
