// Exceptions thrown from overridden ToString and get_Message while the
// base library calls them (String.Concat, Console.WriteLine(object),
// Exception.ToString is avoided), caught by filters and finally blocks in
// the caller, recursion through callbacks.
using System;

class Bad
{
    int n;
    public Bad(int n) { this.n = n; }
    public override string ToString()
    {
        if (n % 3 == 0) throw new InvalidOperationException("cannot print " + ((object)n).ToString());
        if (n > 1) return "[" + new Bad(n - 1).ToString() + "]";
        return "bad" + ((object)n).ToString();
    }
}

class LoudException : Exception
{
    public int Level;
    public LoudException(int level) : base("loud") { Level = level; }
    public override string Message
    {
        get
        {
            if (Level > 2) throw new LoudException(Level - 1);
            return "level " + ((object)Level).ToString();
        }
    }
}

static class Program
{
    static int finallies;

    static string Describe(object o)
    {
        try
        {
            return "value: " + o;
        }
        finally
        {
            finallies++;
        }
    }

    static int Main()
    {
        int caught = 0;
        for (int i = 1; i <= 8; i++)
        {
            try
            {
                Console.WriteLine(Describe(new Bad(i)));
                Console.WriteLine(new Bad(i));
            }
            catch (InvalidOperationException e) when (e.Message.IndexOf('3') >= 0)
            {
                caught++;
                Console.WriteLine("filtered: " + e.Message);
            }
            catch (InvalidOperationException e)
            {
                caught++;
                Console.WriteLine("caught: " + e.Message);
            }
        }
        for (int level = 1; level <= 5; level++)
        {
            try
            {
                Exception e = new LoudException(level);
                Console.WriteLine("message " + e.Message);
            }
            catch (LoudException e) when (e.Level == 2)
            {
                caught++;
                Console.WriteLine("message threw at level " + e.Level + ": " + e.Message);
            }
            catch (LoudException e)
            {
                caught++;
                Console.WriteLine("message threw at level " + e.Level);
            }
        }
        Console.WriteLine("finally blocks: " + finallies);
        return caught;
    }
}
