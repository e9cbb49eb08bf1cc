// An event bus with interfaces: listeners implement one or several
// interfaces (IListener, IFilter, INamed), an interface extends another,
// an abstract base class implements an interface for its subclasses, and
// the bus tests capabilities with `is`/`as` (isinst) and casts to
// interfaces before calling through them; a listener that throws is
// wrapped in an exception with the original as InnerException.
using System;

interface INamed
{
    string Name();
}

interface IListener : INamed
{
    void On(Event e);
}

interface IFilter
{
    bool Accepts(Event e);
}

interface IPriority
{
    int Priority();
}

class Event
{
    public string Topic;
    public int Value;
    public Event(string topic, int value) { Topic = topic; Value = value; }
    public override string ToString() { return Topic + "=" + Value; }
}

abstract class ListenerBase : IListener
{
    protected string name;
    public int Seen;
    protected ListenerBase(string name) { this.name = name; }
    public virtual string Name() { return name; }
    public void On(Event e)
    {
        Seen++;
        Handle(e);
    }
    protected abstract void Handle(Event e);
}

class Printer : ListenerBase
{
    public Printer(string name) : base(name) { }
    protected override void Handle(Event e) { Console.WriteLine("  " + name + " got " + e.ToString()); }
}

class Summer : ListenerBase, IFilter, IPriority
{
    string topic;
    public long Sum;
    public Summer(string topic) : base("sum-" + topic) { this.topic = topic; }
    public bool Accepts(Event e) { return e.Topic == topic; }
    public int Priority() { return 10; }
    protected override void Handle(Event e) { Sum += e.Value; }
    public override string Name() { return base.Name() + "(" + Sum + ")"; }
}

class Threshold : IListener, IFilter, IPriority
{
    int limit;
    public int Alarms;
    public Threshold(int limit) { this.limit = limit; }
    public string Name() { return "threshold"; }
    public bool Accepts(Event e) { return e.Value > limit; }
    public int Priority() { return 20; }
    public void On(Event e)
    {
        Alarms++;
        if (e.Value > limit * 10)
            throw new InvalidOperationException("absurd value " + e.Value);
        Console.WriteLine("  ALARM " + e);
    }
}

class Counter : Printer
{
    public Counter() : base("counter") { }
    protected override void Handle(Event e) { }
}

class ListenerFailed : Exception
{
    public ListenerFailed(string who, Exception inner) : base(who + " failed", inner) { }
}

class Bus
{
    IListener[] listeners = new IListener[8];
    int count;

    public void Subscribe(IListener l)
    {
        // keep listeners with a priority first, highest first
        int p = l is IPriority ? ((IPriority)l).Priority() : 0;
        int i = count;
        while (i > 0)
        {
            IPriority other = listeners[i - 1] as IPriority;
            int q = other != null ? other.Priority() : 0;
            if (q >= p) break;
            listeners[i] = listeners[i - 1];
            i--;
        }
        listeners[i] = l;
        count++;
    }

    public int Publish(Event e)
    {
        int delivered = 0;
        for (int i = 0; i < count; i++)
        {
            IListener l = listeners[i];
            IFilter f = l as IFilter;
            if (f != null && !f.Accepts(e)) continue;
            try
            {
                l.On(e);
                delivered++;
            }
            catch (Exception ex)
            {
                throw new ListenerFailed(l.Name(), ex);
            }
        }
        return delivered;
    }

    public void Describe()
    {
        for (int i = 0; i < count; i++)
        {
            object o = listeners[i];
            string kinds = ((INamed)o).Name() + ":";
            if (o is IFilter) kinds = kinds + " filter";
            if (o is IPriority) kinds = kinds + " priority";
            if (o is ListenerBase) kinds = kinds + " base";
            if (o is Printer) kinds = kinds + " printer";
            Console.WriteLine("  " + kinds);
        }
    }
}

static class Program
{
    static int Main()
    {
        Bus bus = new Bus();
        Summer temp = new Summer("temp");
        Summer load = new Summer("load");
        Threshold th = new Threshold(50);
        Counter counter = new Counter();
        bus.Subscribe(new Printer("log"));
        bus.Subscribe(temp);
        bus.Subscribe(counter);
        bus.Subscribe(th);
        bus.Subscribe(load);
        bus.Describe();

        string[] topics = { "temp", "load", "temp", "disk", "load", "temp", "temp", "disk" };
        int total = 0;
        for (int i = 0; i < topics.Length; i++)
        {
            int value = (i * 37 + 11) % 90;
            if (i == 6) value = 900;
            Event e = new Event(topics[i], value);
            Console.WriteLine("publish " + e);
            try
            {
                int n = bus.Publish(e);
                total += n;
                Console.WriteLine("  delivered to " + n);
            }
            catch (ListenerFailed ex) when (ex.InnerException is InvalidOperationException)
            {
                Console.WriteLine("  " + ex.Message + ": " + ex.InnerException.Message);
            }
        }
        bus.Describe();
        Console.WriteLine("counter saw " + counter.Seen);
        Console.WriteLine("alarms " + th.Alarms);
        INamed[] named = { temp, load, th, counter };
        foreach (INamed n in named)
            Console.WriteLine(n.Name());
        return total;
    }
}
