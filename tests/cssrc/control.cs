// Exception control flow as C# writes it: break, continue and return
// inside try blocks (leave through finally blocks), when-filters with side
// effects that run before inner finally blocks (the two-pass model), a
// finally that throws and replaces the exception, rethrow keeping the
// same object, a catch-all, nested try/catch/finally in loops and in
// recursion, and a retry loop.
using System;

class Trace
{
    public static string Log;
    public static void Add(string s) { Log = Log == null ? s : Log + " " + s; }
    public static void Flush(string title)
    {
        Console.WriteLine(title + ": " + Log);
        Log = null;
    }
}

class RetryableException : Exception
{
    public int Attempt;
    public RetryableException(int attempt) : base("attempt failed") { Attempt = attempt; }
}

static class Program
{
    static int LoopWithLeaves()
    {
        int sum = 0;
        for (int i = 0; i < 10; i++)
        {
            try
            {
                if (i % 3 == 0) continue;
                if (i == 8) break;
                sum += i;
                Trace.Add("+" + i);
            }
            finally
            {
                Trace.Add("f" + i);
            }
        }
        return sum;
    }

    static int ReturnFromNested(int n)
    {
        try
        {
            try
            {
                if (n > 0) return n * 10;
                Trace.Add("inner-body");
            }
            finally
            {
                Trace.Add("inner-finally");
            }
            return -1;
        }
        finally
        {
            Trace.Add("outer-finally");
        }
    }

    static bool Note(string what, bool result)
    {
        Trace.Add(what);
        return result;
    }

    static void Thrower(int level)
    {
        try
        {
            if (level == 0) throw new InvalidOperationException("deep");
            Thrower(level - 1);
        }
        finally
        {
            Trace.Add("finally" + level);
        }
    }

    static void TwoPass()
    {
        try
        {
            Thrower(2);
        }
        catch (InvalidOperationException e) when (Note("filter-no", false))
        {
            Trace.Add("never");
        }
        catch (InvalidOperationException e) when (Note("filter-yes", e.Message == "deep"))
        {
            Trace.Add("caught");
        }
    }

    static void FinallyReplaces()
    {
        try
        {
            try
            {
                throw new ArgumentException("first");
            }
            finally
            {
                Trace.Add("finally-throws");
                throw new FormatException("second");
            }
        }
        catch (ArgumentException)
        {
            Trace.Add("wrong");
        }
        catch (FormatException e)
        {
            Trace.Add("got-" + e.Message);
        }
    }

    static Exception rethrown;

    static void Rethrow()
    {
        try
        {
            try
            {
                rethrown = new NotSupportedException("original");
                throw rethrown;
            }
            catch (Exception)
            {
                Trace.Add("inner-catch");
                throw;
            }
        }
        catch (NotSupportedException e)
        {
            Trace.Add(e == rethrown ? "same-object" : "different-object");
        }
    }

    static int Retry()
    {
        int attempt = 0;
        while (true)
        {
            attempt++;
            try
            {
                if (attempt < 4) throw new RetryableException(attempt);
                Trace.Add("ok-on-" + attempt);
                return attempt;
            }
            catch (RetryableException e) when (e.Attempt < 3)
            {
                Trace.Add("retry-" + e.Attempt);
            }
            catch (RetryableException e)
            {
                Trace.Add("last-chance-" + e.Attempt);
            }
            finally
            {
                Trace.Add("f");
            }
        }
    }

    static int Depth(int n)
    {
        if (n == 0) throw new OverflowException();
        try
        {
            return Depth(n - 1) + 1;
        }
        catch (OverflowException) when (n % 4 == 0)
        {
            Trace.Add("stop-at-" + n);
            return 100;
        }
        finally
        {
            if (n % 2 == 0) Trace.Add("d" + n);
        }
    }

    static int CatchAll(object thing)
    {
        try
        {
            string s = (string)thing;
            return s.Length;
        }
        catch (InvalidCastException)
        {
            return -1;
        }
        catch
        {
            return -2;
        }
    }

    static int Main()
    {
        int s = LoopWithLeaves();
        Trace.Flush("loop " + s);
        int r = ReturnFromNested(4) + ReturnFromNested(0);
        Trace.Flush("return " + r);
        TwoPass();
        Trace.Flush("two-pass");
        FinallyReplaces();
        Trace.Flush("finally");
        Rethrow();
        Trace.Flush("rethrow");
        int a = Retry();
        Trace.Flush("retry");
        int d = Depth(10);
        Trace.Flush("depth " + d);
        Console.WriteLine("catch-all: " + CatchAll("four") + " " + CatchAll(4) + " " + CatchAll(null));

        int total = 0;
        for (int i = 0; i < 6; i++)
        {
            try
            {
                try
                {
                    switch (i)
                    {
                        case 0: total += 1; break;
                        case 1: throw new DivideByZeroException();
                        case 2: total += 10 / (i - 2); break;
                        case 3: throw new IndexOutOfRangeException();
                        case 4: continue;
                        default: goto done;
                    }
                    Trace.Add("body" + i);
                }
                catch (ArithmeticException)
                {
                    Trace.Add("arith" + i);
                    total += 100;
                }
                finally
                {
                    Trace.Add("in" + i);
                }
            }
            catch (IndexOutOfRangeException)
            {
                Trace.Add("index" + i);
                total += 1000;
            }
            finally
            {
                Trace.Add("out" + i);
            }
        }
    done:
        Trace.Flush("nested " + total);
        return s + r + a + d + total;
    }
}
