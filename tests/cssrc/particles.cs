// Value types: a Vec struct with operator methods and instance methods
// called on addresses, a Particle struct holding Vec fields (nested
// structs), an array of Particle updated in place through ldelema, ref
// and out parameters (a swap, a TryParse), struct copies that leave the
// original alone, default(T) through initobj, structs boxed into object
// and unboxed, a struct field of a class changed through ldflda, and
// int.ToString()/long.ToString() for all printing. Integer positions
// (thousandths) keep the output the same on every runtime.
using System;

struct Vec
{
    public long X, Y;
    public Vec(long x, long y) { X = x; Y = y; }
    public static Vec operator +(Vec a, Vec b) { return new Vec(a.X + b.X, a.Y + b.Y); }
    public static Vec operator -(Vec a, Vec b) { return new Vec(a.X - b.X, a.Y - b.Y); }
    public static Vec operator *(Vec a, long k) { return new Vec(a.X * k, a.Y * k); }
    public long Dot(Vec o) { return X * o.X + Y * o.Y; }
    public long Manhattan() { return Math.Abs(X) + Math.Abs(Y); }
    public void Scale(long num, long den) { X = X * num / den; Y = Y * num / den; }
    public string Show() { return "(" + X.ToString() + ", " + Y.ToString() + ")"; }
}

struct Particle
{
    public Vec Pos, Vel;
    public int Id;
    public int Bounces;
}

class World
{
    public Particle[] Particles;
    public Vec Gravity;
    public long Size;
    public int Steps;

    public World(int n, long size)
    {
        Size = size;
        Particles = new Particle[n];
        Gravity = new Vec(0, -10);
        int seed = 17;
        for (int i = 0; i < n; i++)
        {
            Particles[i].Id = i;
            seed = (seed * 1103515245 + 12345) & 0x7fffffff;
            Particles[i].Pos = new Vec(seed % size, size / 2 + seed % (size / 2));
            seed = (seed * 1103515245 + 12345) & 0x7fffffff;
            Particles[i].Vel.X = seed % 200 - 100;
            Particles[i].Vel.Y = 0;
        }
    }

    static void Bounce(ref long coord, ref long speed, long max, ref int bounces)
    {
        if (coord < 0) { coord = -coord; speed = -speed; bounces++; }
        else if (coord > max) { coord = 2 * max - coord; speed = -speed; bounces++; }
    }

    public void Step()
    {
        for (int i = 0; i < Particles.Length; i++)
        {
            Particles[i].Vel = Particles[i].Vel + Gravity;
            Particles[i].Pos = Particles[i].Pos + Particles[i].Vel;
            Bounce(ref Particles[i].Pos.X, ref Particles[i].Vel.X, Size, ref Particles[i].Bounces);
            Bounce(ref Particles[i].Pos.Y, ref Particles[i].Vel.Y, Size, ref Particles[i].Bounces);
        }
        if (Steps % 50 == 49) Gravity.Scale(3, 2);
        Steps++;
    }

    public Vec Centroid()
    {
        Vec sum = default(Vec);
        foreach (Particle p in Particles) sum = sum + p.Pos;
        return new Vec(sum.X / Particles.Length, sum.Y / Particles.Length);
    }

    public long Energy()
    {
        long e = 0;
        for (int i = 0; i < Particles.Length; i++) e += Particles[i].Vel.Dot(Particles[i].Vel);
        return e;
    }
}

static class Program
{
    static void Swap(ref Vec a, ref Vec b)
    {
        Vec t = a;
        a = b;
        b = t;
    }

    static bool TryParse(string s, out Vec v)
    {
        v = default(Vec);
        int comma = s.IndexOf(',');
        if (comma < 0) return false;
        try
        {
            v.X = long.Parse(s.Substring(0, comma));
            v.Y = long.Parse(s.Substring(comma + 1));
            return true;
        }
        catch (FormatException)
        {
            return false;
        }
    }

    static void MinMax(Particle[] ps, out int lowest, out int highest)
    {
        lowest = highest = 0;
        for (int i = 1; i < ps.Length; i++)
        {
            if (ps[i].Pos.Y < ps[lowest].Pos.Y) lowest = i;
            if (ps[i].Pos.Y > ps[highest].Pos.Y) highest = i;
        }
    }

    static int Main()
    {
        Vec a = new Vec(3, 4);
        Vec b = a;
        b.X = 100;
        Console.WriteLine("a " + a.Show() + " b " + b.Show());
        Swap(ref a, ref b);
        Console.WriteLine("swapped: a " + a.Show() + " b " + b.Show());
        Vec c = (a - b) * 2;
        Console.WriteLine("(a - b) * 2 = " + c.Show() + ", manhattan " + c.Manhattan().ToString() + ", dot " + a.Dot(b).ToString());

        object boxed = c;
        c.X = 0;
        Vec unboxed = (Vec)boxed;
        Console.WriteLine("boxed copy kept " + unboxed.Show() + ", local is " + c.Show());

        string[] inputs = { "10,-20", "7", "x,1", "-5,5" };
        foreach (string s in inputs)
        {
            Vec v;
            if (TryParse(s, out v)) Console.WriteLine(s + " -> " + v.Show());
            else Console.WriteLine(s + " -> invalid");
        }

        World w = new World(6, 10000);
        for (int i = 0; i < w.Particles.Length; i++)
            Console.WriteLine("p" + w.Particles[i].Id.ToString() + " at " + w.Particles[i].Pos.Show() + " v " + w.Particles[i].Vel.Show());
        for (int step = 1; step <= 200; step++)
        {
            w.Step();
            if (step % 50 == 0)
            {
                int lo, hi;
                MinMax(w.Particles, out lo, out hi);
                Console.WriteLine("step " + step.ToString() + ": centroid " + w.Centroid().Show() + ", energy " + w.Energy().ToString()
                    + ", lowest p" + lo.ToString() + ", highest p" + hi.ToString());
            }
        }
        int bounces = 0;
        foreach (Particle p in w.Particles)
        {
            bounces += p.Bounces;
            Console.WriteLine("p" + p.Id.ToString() + " bounced " + p.Bounces.ToString() + " times, at " + p.Pos.Show());
        }
        Console.WriteLine("gravity now " + w.Gravity.Show());

        Particle copy = w.Particles[0];
        copy.Pos.X = -1;
        Console.WriteLine("array element unchanged by its copy: " + (w.Particles[0].Pos.X != -1).ToString());
        return bounces;
    }
}
