// A binary-heap priority queue ordered through an interface (two
// orderings, one derived from the other), used by a small job scheduler
// simulation; the heap grows by copying its array, and popping an empty
// queue throws InvalidOperationException.
using System;

class Job
{
    public string Name;
    public int Priority;
    public int Deadline;
    public int Work;
    public int Seq;
    public Job(string name, int priority, int deadline, int work)
    {
        Name = name; Priority = priority; Deadline = deadline; Work = work;
    }
}

interface IOrder
{
    // Before reports whether a must come out of the queue before b.
    bool Before(Job a, Job b);
    string Name();
}

class ByPriority : IOrder
{
    public virtual bool Before(Job a, Job b)
    {
        if (a.Priority != b.Priority) return a.Priority > b.Priority;
        return a.Seq < b.Seq;
    }
    public virtual string Name() { return "priority"; }
}

class ByDeadline : ByPriority
{
    public override bool Before(Job a, Job b)
    {
        if (a.Deadline != b.Deadline) return a.Deadline < b.Deadline;
        return base.Before(a, b);
    }
    public override string Name() { return "deadline"; }
}

class Heap
{
    Job[] items = new Job[2];
    int count;
    int seq;
    IOrder order;
    public int Swaps;

    public Heap(IOrder order) { this.order = order; }

    public int Count { get { return count; } }

    public void Push(Job j)
    {
        if (count == items.Length)
        {
            Job[] bigger = new Job[items.Length * 2];
            for (int i = 0; i < count; i++) bigger[i] = items[i];
            items = bigger;
        }
        j.Seq = seq++;
        int k = count++;
        items[k] = j;
        while (k > 0)
        {
            int parent = (k - 1) / 2;
            if (!order.Before(items[k], items[parent])) break;
            Swap(k, parent);
            k = parent;
        }
    }

    public Job Pop()
    {
        if (count == 0) throw new InvalidOperationException("the queue is empty");
        Job top = items[0];
        count--;
        items[0] = items[count];
        items[count] = null;
        int k = 0;
        while (true)
        {
            int l = 2 * k + 1, r = l + 1, best = k;
            if (l < count && order.Before(items[l], items[best])) best = l;
            if (r < count && order.Before(items[r], items[best])) best = r;
            if (best == k) break;
            Swap(k, best);
            k = best;
        }
        return top;
    }

    void Swap(int a, int b)
    {
        Job t = items[a];
        items[a] = items[b];
        items[b] = t;
        Swaps++;
    }
}

static class Scheduler
{
    static Job[] MakeJobs()
    {
        string[] names = { "backup", "email", "compile", "render", "index", "deploy", "test", "lint", "report", "cleanup", "sync", "audit" };
        Job[] jobs = new Job[names.Length];
        int seed = 12345;
        for (int i = 0; i < names.Length; i++)
        {
            seed = (seed * 1103515245 + 12345) & 0x7fffffff;
            int prio = seed % 5;
            seed = (seed * 1103515245 + 12345) & 0x7fffffff;
            int deadline = 5 + seed % 40;
            seed = (seed * 1103515245 + 12345) & 0x7fffffff;
            int work = 1 + seed % 9;
            jobs[i] = new Job(names[i], prio, deadline, work);
        }
        return jobs;
    }

    static int Run(IOrder order)
    {
        Console.WriteLine("-- by " + order.Name());
        Heap h = new Heap(order);
        foreach (Job j in MakeJobs())
            h.Push(j);
        int clock = 0, late = 0, lateness = 0;
        while (h.Count > 0)
        {
            Job j = h.Pop();
            clock += j.Work;
            bool isLate = clock > j.Deadline;
            Console.Write(isLate ? " LATE " : "      ");
            Console.Write(j.Name);
            Console.Write(" p" + j.Priority);
            Console.Write(" due " + j.Deadline);
            Console.WriteLine(" done " + clock);
            if (isLate)
            {
                late++;
                lateness += clock - j.Deadline;
            }
        }
        Console.Write("late jobs: " + late);
        Console.WriteLine(", total lateness " + lateness);
        Console.WriteLine("swaps: " + h.Swaps);
        try
        {
            h.Pop();
        }
        catch (InvalidOperationException e)
        {
            Console.WriteLine("pop on empty: " + e.Message);
        }
        return lateness;
    }

    static void HeapSortCheck()
    {
        Heap h = new Heap(new ByPriority());
        int seed = 7;
        for (int i = 0; i < 200; i++)
        {
            seed = (seed * 1103515245 + 12345) & 0x7fffffff;
            h.Push(new Job("n", seed % 1000, 0, 0));
        }
        int last = int.MaxValue, popped = 0;
        bool sorted = true;
        while (h.Count > 0)
        {
            Job j = h.Pop();
            if (j.Priority > last) sorted = false;
            last = j.Priority;
            popped++;
        }
        Console.Write("200 random pushes popped " + popped);
        Console.WriteLine(sorted ? " in order" : " OUT OF ORDER");
    }

    static int Main()
    {
        int a = Run(new ByPriority());
        int b = Run(new ByDeadline());
        HeapSortCheck();
        return a > b ? 1 : 2;
    }
}
