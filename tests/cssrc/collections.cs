// Hand-written collections as C# programs wrote them before generics: a
// doubly linked list of objects with an iterator class, a growable stack,
// a ring-buffer queue, and a binary search tree with recursive insert,
// delete, height and in-order walk through a visitor interface; boxed
// ints are unboxed with unbox.any, and misuse throws
// InvalidOperationException.
using System;

class Node
{
    public object Value;
    public Node Prev, Next;
    public Node(object v) { Value = v; }
}

class LinkedList
{
    Node head, tail;
    public int Count;

    public void AddLast(object v)
    {
        Node n = new Node(v);
        if (tail == null) head = tail = n;
        else { tail.Next = n; n.Prev = tail; tail = n; }
        Count++;
    }

    public void AddFirst(object v)
    {
        Node n = new Node(v);
        if (head == null) head = tail = n;
        else { n.Next = head; head.Prev = n; head = n; }
        Count++;
    }

    public bool Remove(object v)
    {
        for (Node n = head; n != null; n = n.Next)
        {
            if (!Same(n.Value, v)) continue;
            if (n.Prev != null) n.Prev.Next = n.Next; else head = n.Next;
            if (n.Next != null) n.Next.Prev = n.Prev; else tail = n.Prev;
            Count--;
            return true;
        }
        return false;
    }

    static bool Same(object a, object b)
    {
        if (a is int && b is int) return (int)a == (int)b;
        string s = a as string, t = b as string;
        if (s != null && t != null) return s == t;
        return a == b;
    }

    public void Reverse()
    {
        Node n = head;
        while (n != null)
        {
            Node next = n.Next;
            n.Next = n.Prev;
            n.Prev = next;
            n = next;
        }
        Node t = head; head = tail; tail = t;
    }

    public Iterator Iterate() { return new Iterator(head); }

    public string Join(string sep)
    {
        string s = null;
        for (Iterator it = Iterate(); it.MoveNext(); )
            s = s == null ? it.Current.ToString() : s + sep + it.Current.ToString();
        return s == null ? "(empty)" : s;
    }
}

class Iterator
{
    Node next;
    public object Current;
    public Iterator(Node first) { next = first; }
    public bool MoveNext()
    {
        if (next == null) return false;
        Current = next.Value;
        next = next.Next;
        return true;
    }
}

class Stack
{
    object[] items = new object[2];
    int count;
    public int Count { get { return count; } }
    public void Push(object o)
    {
        if (count == items.Length)
        {
            object[] bigger = new object[count * 2];
            for (int i = 0; i < count; i++) bigger[i] = items[i];
            items = bigger;
        }
        items[count++] = o;
    }
    public object Pop()
    {
        if (count == 0) throw new InvalidOperationException("stack empty");
        object o = items[--count];
        items[count] = null;
        return o;
    }
    public object Peek() { return count == 0 ? null : items[count - 1]; }
}

class Queue
{
    int[] ring;
    int head, count;
    public Queue(int capacity) { ring = new int[capacity]; }
    public bool Full { get { return count == ring.Length; } }
    public int Count { get { return count; } }
    public void Enqueue(int v)
    {
        if (Full) throw new InvalidOperationException("queue full");
        ring[(head + count) % ring.Length] = v;
        count++;
    }
    public int Dequeue()
    {
        if (count == 0) throw new InvalidOperationException("queue empty");
        int v = ring[head];
        head = (head + 1) % ring.Length;
        count--;
        return v;
    }
}

interface IVisitor
{
    void Visit(int key, int depth);
}

class TreeNode
{
    public int Key;
    public TreeNode Left, Right;
    public TreeNode(int k) { Key = k; }
}

class Tree
{
    TreeNode root;
    public int Size;

    bool added;

    public bool Insert(int k)
    {
        added = false;
        root = Insert(root, k);
        if (added) Size++;
        return added;
    }

    TreeNode Insert(TreeNode n, int k)
    {
        if (n == null) { added = true; return new TreeNode(k); }
        if (k < n.Key) n.Left = Insert(n.Left, k);
        else if (k > n.Key) n.Right = Insert(n.Right, k);
        return n;
    }

    public void Delete(int k) { root = Delete(root, k); }

    TreeNode Delete(TreeNode n, int k)
    {
        if (n == null) return null;
        if (k < n.Key) { n.Left = Delete(n.Left, k); return n; }
        if (k > n.Key) { n.Right = Delete(n.Right, k); return n; }
        Size--;
        if (n.Left == null) return n.Right;
        if (n.Right == null) return n.Left;
        TreeNode m = n.Right;
        while (m.Left != null) m = m.Left;
        n.Key = m.Key;
        Size++; // the recursive delete below counts the successor
        n.Right = Delete(n.Right, m.Key);
        return n;
    }

    public int Height() { return Height(root); }
    static int Height(TreeNode n) { return n == null ? 0 : 1 + Math.Max(Height(n.Left), Height(n.Right)); }

    public void Walk(IVisitor v) { Walk(root, 0, v); }
    static void Walk(TreeNode n, int depth, IVisitor v)
    {
        if (n == null) return;
        Walk(n.Left, depth + 1, v);
        v.Visit(n.Key, depth);
        Walk(n.Right, depth + 1, v);
    }
}

class Collector : IVisitor
{
    public string Keys;
    public int MaxDepth;
    public void Visit(int key, int depth)
    {
        Keys = Keys == null ? ((object)key).ToString() : Keys + "," + key;
        if (depth > MaxDepth) MaxDepth = depth;
    }
}

static class Program
{
    static int Main()
    {
        LinkedList list = new LinkedList();
        for (int i = 1; i <= 5; i++) list.AddLast(i * i);
        list.AddFirst("start");
        list.AddLast("end");
        Console.WriteLine(list.Join(" -> "));
        list.Remove(9);
        list.Remove("start");
        Console.WriteLine("removed 9 and start: " + list.Join(" -> "));
        Console.WriteLine("remove 7: " + list.Remove(7));
        list.Reverse();
        Console.WriteLine("reversed: " + list.Join(" "));
        int sum = 0;
        for (Iterator it = list.Iterate(); it.MoveNext(); )
            if (it.Current is int) sum += (int)it.Current;
        Console.WriteLine("sum of ints: " + sum);

        // balanced brackets with the stack
        string[] inputs = { "([]{()})", "([)]", "((", "{[()()]}[]", "])" };
        foreach (string s in inputs)
        {
            Stack st = new Stack();
            bool ok = true;
            foreach (char c in s)
            {
                if (c == '(' || c == '[' || c == '{') { st.Push(c); continue; }
                char open = c == ')' ? '(' : c == ']' ? '[' : '{';
                try
                {
                    if ((char)st.Pop() != open) { ok = false; break; }
                }
                catch (InvalidOperationException)
                {
                    ok = false;
                    break;
                }
            }
            Console.WriteLine(s + (ok && st.Count == 0 ? " balanced" : " unbalanced"));
        }

        // Josephus problem with the ring queue
        Queue q = new Queue(41);
        for (int i = 1; i <= 41; i++) q.Enqueue(i);
        string order = null;
        while (q.Count > 1)
        {
            q.Enqueue(q.Dequeue());
            q.Enqueue(q.Dequeue());
            int out1 = q.Dequeue();
            if (q.Count < 5) order = order == null ? ((object)out1).ToString() : order + " " + out1;
        }
        Console.WriteLine("josephus: last out " + order + ", survivor " + q.Dequeue());
        try
        {
            q.Dequeue();
        }
        catch (InvalidOperationException e)
        {
            Console.WriteLine(e.Message);
        }

        Tree t = new Tree();
        int seed = 99, dups = 0;
        for (int i = 0; i < 60; i++)
        {
            seed = (seed * 75 + 74) % 65537;
            if (!t.Insert(seed % 100)) dups++;
        }
        Collector c1 = new Collector();
        t.Walk(c1);
        Console.WriteLine("tree: " + c1.Keys);
        Console.Write("size " + t.Size);
        Console.Write(", duplicates " + dups);
        Console.WriteLine(", height " + t.Height());
        for (int k = 0; k < 100; k += 3) t.Delete(k);
        Collector c2 = new Collector();
        t.Walk(c2);
        Console.WriteLine("without multiples of 3: " + c2.Keys);
        Console.Write("size " + t.Size);
        Console.WriteLine(", deepest " + c2.MaxDepth);
        return t.Size;
    }
}
