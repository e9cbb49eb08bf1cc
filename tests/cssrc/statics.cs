// Static state the way C# programs keep it: static field initializers
// (mcs emits a static constructor and marks the class beforefieldinit,
// so it runs at the first read of a field; here it prints nothing, so
// Mono, which runs it earlier, agrees), explicit static constructors
// (precise: they run right before the first use of the class, and print
// where), a lazily built singleton whose static constructor makes the
// instance, and a static constructor that throws: every use of its class
// then throws TypeInitializationException, the second without running it
// again.
using System;

class Config
{
    public static readonly int Port = ComputePort();
    public static string Name = "server";
    public static int Loads;

    static int ComputePort()
    {
        Loads++;
        return 8000 + 80;
    }
}

class Registry
{
    static int count;
    static readonly string[] names;

    static Registry()
    {
        Console.WriteLine("Registry initialized");
        names = new string[4];
    }

    public static void Add(string n)
    {
        names[count] = n;
        count = count + 1;
    }

    public static int Count { get { return count; } }

    public static string Last { get { return names[count - 1]; } }
}

class Fragile
{
    static Fragile()
    {
        Console.WriteLine("Fragile initializing");
        throw new InvalidOperationException("not today");
    }

    public static int Value() { return 1; }
}

class Counter
{
    static Counter instance;
    int n;

    static Counter()
    {
        Console.WriteLine("Counter static constructor");
        instance = new Counter();
    }

    Counter() { Console.WriteLine("Counter constructor"); }

    public static Counter Instance { get { return instance; } }

    public int Next()
    {
        n = n + 1;
        return n;
    }
}

static class Program
{
    static int Main()
    {
        Console.WriteLine("start");
        Console.WriteLine(Config.Port);
        Console.WriteLine(Config.Name + " loaded " + Config.Loads + " time(s)");
        Registry.Add("alpha");
        Registry.Add("beta");
        Console.WriteLine("registered " + Registry.Count + ", last " + Registry.Last);
        for (int i = 0; i < 2; i++)
        {
            try
            {
                Console.WriteLine(Fragile.Value());
            }
            catch (TypeInitializationException e)
            {
                Console.WriteLine(e.Message);
                Console.WriteLine(e.InnerException.Message);
            }
        }
        Console.WriteLine("counter");
        Console.WriteLine(Counter.Instance.Next());
        Console.WriteLine(Counter.Instance.Next());
        return Registry.Count;
    }
}
