// Integer semantics as C# spells them: unsigned int and long arithmetic
// (div.un, rem.un, shr.un, clt.un comparisons), shifts with counts past
// the width, sign and zero extension through casts to sbyte, byte, short,
// ushort and char, checked conversions that throw OverflowException,
// negative division and remainder, a sparse switch (which mcs compiles to
// comparisons around switch tables), bit tricks (popcount, reversal,
// rotation) and a 64-bit hash, all printed through Console overloads.
using System;

static class Bits
{
    public static int PopCount(uint x)
    {
        int n = 0;
        while (x != 0) { x &= x - 1; n++; }
        return n;
    }

    public static uint Reverse(uint x)
    {
        uint r = 0;
        for (int i = 0; i < 32; i++) { r = (r << 1) | (x & 1); x >>= 1; }
        return r;
    }

    public static uint RotateLeft(uint x, int k) { return (x << k) | (x >> (32 - k)); }

    public static ulong Fnv1a(string s)
    {
        ulong h = 14695981039346656037UL;
        foreach (char c in s) { h ^= c; h *= 1099511628211UL; }
        return h;
    }

    public static int HighestBit(ulong x)
    {
        int n = -1;
        while (x != 0) { x >>= 1; n++; }
        return n;
    }

    public static string Classify(int code)
    {
        switch (code)
        {
            case -5: return "minus five";
            case 0: return "zero";
            case 1: case 2: case 3: return "small";
            case 10: return "ten";
            case 11: return "eleven";
            case 12: return "twelve";
            case 13: return "thirteen";
            case 100: return "hundred";
            case 1000: return "thousand";
            case 1001: return "thousand and one";
            case int.MaxValue: return "max";
            default: return "other";
        }
    }

    public static string Kind(long v)
    {
        switch (v)
        {
            case 0L: return "zero";
            case 1L: return "one";
            case 2L: return "two";
            case 3L: return "three";
            case 5000000000L: return "five billion";
            default: return v < 0 ? "negative" : "positive";
        }
    }
}

static class Program
{
    static void Show(string label, long v)
    {
        Console.Write(label);
        Console.Write(" = ");
        Console.WriteLine(v);
    }

    static void ShowU(string label, ulong v)
    {
        Console.Write(label);
        Console.Write(" = ");
        Console.WriteLine(v);
    }

    static int Main()
    {
        uint a = 4000000000u, b = 7u;
        ShowU("a / b", a / b);
        ShowU("a % b", a % b);
        ShowU("a >> 3", a >> 3);
        Console.WriteLine("a > b: " + (a > b));
        Console.WriteLine("(int)a < b: " + ((int)a < (int)b));
        ulong big = 18000000000000000000UL;
        ShowU("big / 3", big / 3);
        ShowU("big % 1000", big % 1000);
        Console.WriteLine("big > long.MaxValue: " + (big > (ulong)long.MaxValue));

        int x = -17;
        Show("-17 / 5", x / 5);
        Show("-17 % 5", x % 5);
        Show("-17 >> 2", x >> 2);
        Show("(uint)-17 >> 2", (uint)x >> 2);
        int k = 35;
        Show("1 << 35", 1 << k);
        Show("1L << 35", 1L << k);
        Show("1L << 67", 1L << (k + 32));
        Show("-1 >> 40", -1 >> (k + 5));

        int v = 0x1234ABCD;
        Show("(sbyte)", (sbyte)v);
        Show("(byte)", (byte)v);
        Show("(short)", (short)v);
        Show("(ushort)", (ushort)v);
        Show("(char)", (char)v);
        Show("(sbyte)200", (sbyte)(k * 5 + 25));
        Show("(long)(uint)-1", (long)(uint)(v | -1));
        Show("(ulong)(long)-1 >> 60", (long)((ulong)(long)(v | -1) >> 60));

        string[] tests = { "300", "-129", "127", "70000", "-1", "4294967296" };
        foreach (string t in tests)
        {
            long n = long.Parse(t);
            Console.Write(t + ":");
            try { Console.Write(" sbyte " + checked((sbyte)n)); } catch (OverflowException) { Console.Write(" sbyte overflow"); }
            try { Console.Write(" ushort " + checked((ushort)n)); } catch (OverflowException) { Console.Write(" ushort overflow"); }
            try { Console.Write(" uint " + checked((uint)n)); } catch (OverflowException) { Console.Write(" uint overflow"); }
            try { Console.Write(" int " + checked((int)n)); } catch (OverflowException) { Console.Write(" int overflow"); }
            Console.WriteLine();
        }
        try
        {
            int m = int.MinValue;
            Console.WriteLine(m / (x + 16));
        }
        catch (ArithmeticException)
        {
            // CoreCLR throws OverflowException, Mono DivideByZeroException
            Console.WriteLine("MinValue / -1 throws");
        }
        try
        {
            Console.WriteLine(checked(int.MaxValue + k));
        }
        catch (OverflowException)
        {
            Console.WriteLine("MaxValue + 35 overflows when checked");
        }
        Console.WriteLine("unchecked: " + unchecked(int.MaxValue + k));

        uint[] words = new uint[4];
        words[0] = 0; words[1] = 1; words[2] = 0xF0F0F0F0u; words[3] = uint.MaxValue;
        foreach (uint w in words)
        {
            Console.Write(w);
            Console.Write(": pop " + Bits.PopCount(w));
            Console.Write(", reversed ");
            Console.Write(Bits.Reverse(w));
            Console.Write(", rotl 8 ");
            Console.WriteLine(Bits.RotateLeft(w, 8));
        }
        ShowU("fnv1a(\"hello\")", Bits.Fnv1a("hello"));
        Show("highest bit of fnv1a(\"a\")", Bits.HighestBit(Bits.Fnv1a("a")));

        string line = null;
        for (int c = -6; c <= 14; c++) line = line + Bits.Classify(c)[0];
        Console.WriteLine(line);
        int[] codes = new int[5];
        codes[0] = 100; codes[1] = 1000; codes[2] = 1001; codes[3] = int.MaxValue; codes[4] = int.MinValue;
        foreach (int c in codes) Console.WriteLine(c + " " + Bits.Classify(c));
        long[] longs = new long[4];
        longs[0] = 2; longs[1] = 5000000000L; longs[2] = -3; longs[3] = 4;
        foreach (long l in longs) Console.WriteLine(l + " " + Bits.Kind(l));

        char ch = 'A';
        ch += (char)2;
        ch++;
        Console.WriteLine(ch);
        Console.WriteLine((int)ch + 1);
        Console.WriteLine((char)(ch + 1));
        return Bits.PopCount(a);
    }
}
