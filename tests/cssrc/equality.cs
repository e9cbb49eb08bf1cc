// Equality as C# programs write it: == and != on strings (op_Equality,
// op_Inequality), "" (String.Empty), Equals overridden in classes and
// called through object, boxed numbers compared with Equals (by type and
// value), structs compared field by field by ValueType.Equals (nested
// structs, floats, strings, and objects whose own Equals overrides run
// in order), object.ReferenceEquals, and a set of keys that finds them
// with Equals; concatenations of several parts print the results.
using System;

class Money
{
    public readonly string Currency;
    public readonly long Cents;
    public Money(string currency, long cents) { Currency = currency; Cents = cents; }
    public override bool Equals(object o)
    {
        Money m = o as Money;
        return m != null && m.Currency == Currency && m.Cents == Cents;
    }
    public override string ToString() { return Currency + " " + Cents / 100 + "." + (Cents % 100 < 10 ? "0" : "") + Cents % 100; }
}

class Noisy
{
    public static string Log;
    public readonly int Id;
    public Noisy(int id) { Id = id; }
    public override bool Equals(object o)
    {
        Log = Log + "[" + Id + "]";
        Noisy n = o as Noisy;
        return n != null && n.Id == Id;
    }
}

class Touchy
{
    public override bool Equals(object o) { throw new InvalidOperationException("do not compare me"); }
}

struct Point
{
    public int X, Y;
    public Point(int x, int y) { X = x; Y = y; }
}

struct Sample
{
    public Point At;
    public double Value;
    public float Weight;
    public char Tag;
    public bool On;
    public Sample(Point at, double value, float weight, char tag, bool on) { At = at; Value = value; Weight = weight; Tag = tag; On = on; }
}

struct Labeled
{
    public string Label;
    public object Payload;
    public Labeled(string label, object payload) { Label = label; Payload = payload; }
}

class KeySet
{
    object[] keys = new object[4];
    int count;
    public bool Add(object k)
    {
        if (Contains(k)) return false;
        if (count == keys.Length)
        {
            object[] bigger = new object[count * 2];
            for (int i = 0; i < count; i++) bigger[i] = keys[i];
            keys = bigger;
        }
        keys[count++] = k;
        return true;
    }
    public bool Contains(object k)
    {
        for (int i = 0; i < count; i++)
            if (keys[i].Equals(k)) return true;
        return false;
    }
    public int Count { get { return count; } }
}

static class Program
{
    static int checks;
    static int passed;

    static void Check(string what, bool got, bool want)
    {
        checks++;
        if (got == want) passed++;
        Console.WriteLine(what + ": " + got + (got == want ? "" : " (expected " + want + ")"));
    }

    static string Join(string[] parts, string sep)
    {
        string s = "";
        for (int i = 0; i < parts.Length; i++)
            s = s == "" ? parts[i] : s + sep + parts[i];
        return s;
    }

    static int Main()
    {
        Noisy.Log = "";
        string a = "abc";
        string b = "ab" + (a.Length > 2 ? "c" : "");
        Check("a == b", a == b, true);
        Check("a != b", a != b, false);
        Check("(object)a == (object)b", (object)a == (object)b, false);
        Check("a.Equals((object)b)", a.Equals((object)b), true);
        Check("((object)a).Equals(b)", ((object)a).Equals(b), true);
        Check("\"\" == String.Empty", "" == String.Empty, true);
        Check("Join of nothing is empty", Join(new string[0], ",") == "", true);
        Console.WriteLine("joined: " + Join(new string[] { "x", "y", "z" }, ", "));

        object m1 = new Money("EUR", 1050), m2 = new Money("EUR", 1050), m3 = new Money("USD", 1050);
        Check("m1.Equals(m2)", m1.Equals(m2), true);
        Check("m1.Equals(m3)", m1.Equals(m3), false);
        Check("m1 == m2 (references)", m1 == m2, false);
        Check("ReferenceEquals(m1, m1)", object.ReferenceEquals(m1, m1), true);
        Console.WriteLine("m1 is " + m1 + ", m3 is " + m3 + ", " + new Money("GBP", 7));

        object i3 = 3, j3 = 3, l3 = 3L, d0 = 0.0, dn0 = -0.0, nan = double.NaN;
        Check("3.Equals(3)", i3.Equals(j3), true);
        Check("3.Equals(3L)", i3.Equals(l3), false);
        Check("0.0.Equals(-0.0)", d0.Equals(dn0), true);
        Check("NaN.Equals(NaN)", nan.Equals(nan), true);
        Check("ReferenceEquals(3, 3)", object.ReferenceEquals(i3, j3), false);

        object p1 = new Point(1, 2), p2 = new Point(1, 2), p3 = new Point(2, 1);
        Check("Point(1,2).Equals(Point(1,2))", p1.Equals(p2), true);
        Check("Point(1,2).Equals(Point(2,1))", p1.Equals(p3), false);
        Check("Point.Equals(null)", p1.Equals(null), false);
        Check("Point.Equals(boxed int)", p1.Equals(i3), false);

        object s1 = new Sample(new Point(1, 2), 0.0, float.NaN, 'q', true);
        object s2 = new Sample(new Point(1, 2), -0.0, float.NaN, 'q', true);
        object s3 = new Sample(new Point(1, 2), 0.0, float.NaN, 'q', false);
        Check("Sample with 0.0 and -0.0, NaN weights", s1.Equals(s2), true);
        Check("Sample differing in On", s1.Equals(s3), false);

        object n1 = new Labeled(a, new Noisy(1)), n2 = new Labeled(b, new Noisy(1)), n3 = new Labeled(b, new Noisy(2));
        Check("Labeled equal", n1.Equals(n2), true);
        Check("Labeled with another Noisy", n1.Equals(n3), false);
        Check("Labeled with another label", n1.Equals(new Labeled("abd", new Noisy(1))), false);
        Check("Labeled holding boxed Points", ((object)new Labeled("p", p1)).Equals(new Labeled("p", p2)), true);
        Check("Labeled holding nulls", ((object)new Labeled(null, null)).Equals(new Labeled(null, null)), true);
        Console.WriteLine("Noisy.Equals ran: " + Noisy.Log);
        try
        {
            Check("Labeled holding a Touchy", ((object)new Labeled("t", new Touchy())).Equals(new Labeled("t", new Touchy())), false);
        }
        catch (InvalidOperationException e)
        {
            Console.WriteLine("Touchy: " + e.Message);
        }

        KeySet set = new KeySet();
        object[] keys = { "apple", 7, 7L, new Point(3, 4), new Money("EUR", 5), "app" + "le".Substring(0, 2), 7, new Point(3, 4), new Money("EUR", 5), 'x', "x" };
        int added = 0;
        for (int i = 0; i < keys.Length; i++)
            if (set.Add(keys[i])) added++;
        Console.WriteLine("set: " + added + " of " + keys.Length + " keys added, " + set.Count + " kept");
        Check("set contains Point(3,4)", set.Contains(new Point(3, 4)), true);
        Check("set contains 7u", set.Contains(7u), false);

        Console.WriteLine(passed + " of " + checks + " checks as expected");
        return checks - passed;
    }
}
