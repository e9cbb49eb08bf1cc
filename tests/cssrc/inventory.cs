// mcs: -debug
// An inventory processing commands from text lines, compiled without
// -optimize+ (mcs then keeps nops, extra locals and branches): a custom
// exception hierarchy (abstract base, subclasses with their own fields
// and overridden Message), Int32.Parse with FormatException and
// OverflowException handling, a `using` block per batch that audits even
// when a command fails, rethrow with `throw;`, and exceptions wrapped
// with inner exceptions and unwrapped again.
using System;

abstract class InventoryException : Exception
{
    protected InventoryException(string message) : base(message) { }
    protected InventoryException(string message, Exception inner) : base(message, inner) { }
    public abstract int Code();
}

class UnknownItemException : InventoryException
{
    public string Item;
    public UnknownItemException(string item) : base("unknown item") { Item = item; }
    public override string Message { get { return base.Message + " '" + Item + "'"; } }
    public override int Code() { return 404; }
}

class OutOfStockException : InventoryException
{
    public int Wanted, Available;
    public OutOfStockException(string item, int wanted, int available)
        : base("not enough " + item)
    {
        Wanted = wanted;
        Available = available;
    }
    public override int Code() { return 409; }
}

class BadCommandException : InventoryException
{
    public BadCommandException(string line, Exception inner) : base("bad command: " + line, inner) { }
    public override int Code() { return 400; }
}

class Audit : IDisposable
{
    string batch;
    public int Commands, Failed;
    public static int Closed;
    public Audit(string batch)
    {
        this.batch = batch;
        Console.WriteLine("[" + batch + "] begin");
    }
    public void Dispose()
    {
        Closed++;
        Console.Write("[" + batch + "] end: ");
        Console.Write(Commands);
        Console.WriteLine(" commands, failed " + Failed);
    }
}

class Inventory
{
    string[] names = new string[10];
    int[] qty = new int[10];
    int count;

    int Index(string name)
    {
        for (int i = 0; i < count; i++)
            if (names[i] == name) return i;
        return -1;
    }

    public void Add(string name, int n)
    {
        int i = Index(name);
        if (i < 0)
        {
            if (count == names.Length) throw new InvalidOperationException("inventory full");
            i = count++;
            names[i] = name;
        }
        qty[i] = checked(qty[i] + n);
    }

    public void Remove(string name, int n)
    {
        int i = Index(name);
        if (i < 0) throw new UnknownItemException(name);
        if (qty[i] < n) throw new OutOfStockException(name, n, qty[i]);
        qty[i] = qty[i] - n;
    }

    public int Quantity(string name)
    {
        int i = Index(name);
        if (i < 0) throw new UnknownItemException(name);
        return qty[i];
    }

    public void Print()
    {
        for (int i = 0; i < count; i++)
        {
            Console.Write("  " + names[i]);
            Console.WriteLine(": " + qty[i]);
        }
    }
}

static class Program
{
    static string[] Split(string line)
    {
        int n = 0;
        bool inWord = false;
        for (int i = 0; i < line.Length; i++)
        {
            bool space = line[i] == ' ';
            if (!space && !inWord) n++;
            inWord = !space;
        }
        string[] parts = new string[n];
        int k = 0, start = 0;
        inWord = false;
        for (int i = 0; i <= line.Length; i++)
        {
            bool space = i == line.Length || line[i] == ' ';
            if (!space && !inWord) start = i;
            if (space && inWord) parts[k++] = line.Substring(start, i - start);
            inWord = !space;
        }
        return parts;
    }

    static void Execute(Inventory inv, string line)
    {
        string[] p = Split(line);
        try
        {
            switch (p[0])
            {
                case "add":
                    inv.Add(p[1], int.Parse(p[2]));
                    break;
                case "take":
                    inv.Remove(p[1], int.Parse(p[2]));
                    break;
                case "count":
                    Console.WriteLine("  " + p[1] + " = " + inv.Quantity(p[1]));
                    break;
                case "list":
                    inv.Print();
                    break;
                default:
                    throw new NotSupportedException(p[0]);
            }
        }
        catch (FormatException e)
        {
            throw new BadCommandException(line, e);
        }
        catch (OverflowException e)
        {
            throw new BadCommandException(line, e);
        }
        catch (IndexOutOfRangeException e)
        {
            throw new BadCommandException(line, e);
        }
        catch (InventoryException)
        {
            Console.WriteLine("  (passing on)");
            throw;
        }
    }

    static int RunBatch(Inventory inv, string name, string[] lines)
    {
        int codes = 0;
        using (Audit audit = new Audit(name))
        {
            foreach (string line in lines)
            {
                audit.Commands++;
                try
                {
                    Execute(inv, line);
                }
                catch (OutOfStockException e) when (e.Available > 0)
                {
                    audit.Failed++;
                    codes += e.Code();
                    Console.Write("  only " + e.Available);
                    Console.WriteLine(", taking them all");
                    inv.Remove(Split(line)[1], e.Available);
                }
                catch (InventoryException e)
                {
                    audit.Failed++;
                    codes += e.Code();
                    string why = e.InnerException == null ? null : " (" + Kind(e.InnerException) + ")";
                    Console.Write("  error " + e.Code());
                    Console.WriteLine(": " + e.Message + why);
                }
            }
            if (name == "broken")
                throw new InvalidOperationException("batch aborted");
        }
        return codes;
    }

    static string Kind(Exception e)
    {
        if (e is FormatException) return "not a number";
        if (e is OverflowException) return "number too large";
        if (e is IndexOutOfRangeException) return "missing argument";
        return "other";
    }

    static int Main()
    {
        Inventory inv = new Inventory();
        string[] first = { "add bolts 100", "add nuts 250", "add washers 3x", "take bolts 30", "count bolts", "take nails 1", "list" };
        string[] second = { "take nuts 300", "take bolts 70", "take bolts 1", "add nuts 99999999999", "add", "count washers", "list" };
        string[] third = { "add gears 5", "take gears 2" };
        int codes = RunBatch(inv, "first", first);
        codes += RunBatch(inv, "second", second);
        try
        {
            codes += RunBatch(inv, "broken", third);
        }
        catch (InvalidOperationException e)
        {
            Console.WriteLine("caught: " + e.Message);
        }
        try
        {
            Execute(inv, "fly away");
        }
        catch (NotSupportedException e)
        {
            Console.WriteLine("unsupported: " + e.Message);
        }
        inv.Print();
        Console.WriteLine("audits closed: " + Audit.Closed);
        Console.WriteLine("sum of codes: " + codes);
        return codes % 256;
    }
}
