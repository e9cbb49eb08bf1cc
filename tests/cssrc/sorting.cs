// Sorting algorithms on int arrays (insertion, shell, heap, merge, quick,
// counting) checked against each other, with comparison counters in a
// static field, a sort of strings through a comparer interface
// (String.CompareOrdinal and a case-insensitive one using
// ToLowerInvariant), and binary search; arrays made by an LCG.
using System;

interface IStringOrder
{
    int Compare(string a, string b);
}

class Ordinal : IStringOrder
{
    public int Compare(string a, string b) { return string.CompareOrdinal(a, b); }
}

class IgnoreCase : IStringOrder
{
    public int Compare(string a, string b)
    {
        int c = string.CompareOrdinal(a.ToLowerInvariant(), b.ToLowerInvariant());
        return c != 0 ? c : string.CompareOrdinal(a, b);
    }
}

class ByLength : IStringOrder
{
    IStringOrder tie;
    public ByLength(IStringOrder tie) { this.tie = tie; }
    public int Compare(string a, string b)
    {
        if (a.Length != b.Length) return a.Length - b.Length;
        return tie.Compare(a, b);
    }
}

static class Sorts
{
    public static long Comparisons;

    static bool Less(int a, int b)
    {
        Comparisons++;
        return a < b;
    }

    public static void Insertion(int[] a)
    {
        for (int i = 1; i < a.Length; i++)
        {
            int v = a[i];
            int j = i - 1;
            while (j >= 0 && Less(v, a[j]))
            {
                a[j + 1] = a[j];
                j--;
            }
            a[j + 1] = v;
        }
    }

    public static void Shell(int[] a)
    {
        int gap = 1;
        while (gap < a.Length / 3) gap = gap * 3 + 1;
        for (; gap > 0; gap /= 3)
        {
            for (int i = gap; i < a.Length; i++)
            {
                int v = a[i];
                int j = i;
                for (; j >= gap && Less(v, a[j - gap]); j -= gap)
                    a[j] = a[j - gap];
                a[j] = v;
            }
        }
    }

    static void SiftDown(int[] a, int k, int n)
    {
        while (true)
        {
            int c = 2 * k + 1;
            if (c >= n) return;
            if (c + 1 < n && Less(a[c], a[c + 1])) c++;
            if (!Less(a[k], a[c])) return;
            int t = a[k]; a[k] = a[c]; a[c] = t;
            k = c;
        }
    }

    public static void Heap(int[] a)
    {
        int n = a.Length;
        for (int k = n / 2 - 1; k >= 0; k--) SiftDown(a, k, n);
        for (int end = n - 1; end > 0; end--)
        {
            int t = a[0]; a[0] = a[end]; a[end] = t;
            SiftDown(a, 0, end);
        }
    }

    public static void Merge(int[] a)
    {
        int[] tmp = new int[a.Length];
        MergeSort(a, tmp, 0, a.Length);
    }

    static void MergeSort(int[] a, int[] tmp, int lo, int hi)
    {
        if (hi - lo < 2) return;
        int mid = (lo + hi) >> 1;
        MergeSort(a, tmp, lo, mid);
        MergeSort(a, tmp, mid, hi);
        int i = lo, j = mid, k = lo;
        while (i < mid && j < hi)
            tmp[k++] = Less(a[j], a[i]) ? a[j++] : a[i++];
        while (i < mid) tmp[k++] = a[i++];
        while (j < hi) tmp[k++] = a[j++];
        for (k = lo; k < hi; k++) a[k] = tmp[k];
    }

    public static void Quick(int[] a)
    {
        QuickSort(a, 0, a.Length - 1);
    }

    static void QuickSort(int[] a, int lo, int hi)
    {
        while (lo < hi)
        {
            int p = a[lo + (hi - lo) / 2];
            int i = lo, j = hi;
            while (i <= j)
            {
                while (Less(a[i], p)) i++;
                while (Less(p, a[j])) j--;
                if (i <= j)
                {
                    int t = a[i]; a[i] = a[j]; a[j] = t;
                    i++; j--;
                }
            }
            // recurse into the smaller half, loop on the larger
            if (j - lo < hi - i)
            {
                QuickSort(a, lo, j);
                lo = i;
            }
            else
            {
                QuickSort(a, i, hi);
                hi = j;
            }
        }
    }

    public static void Counting(int[] a)
    {
        if (a.Length == 0) return;
        int min = a[0], max = a[0];
        foreach (int v in a)
        {
            min = Math.Min(min, v);
            max = Math.Max(max, v);
        }
        int[] counts = new int[max - min + 1];
        foreach (int v in a) counts[v - min] = counts[v - min] + 1;
        int k = 0;
        for (int v = 0; v < counts.Length; v++)
            for (int c = counts[v]; c > 0; c--)
                a[k++] = v + min;
    }

    public static void Strings(string[] a, IStringOrder order)
    {
        for (int i = 1; i < a.Length; i++)
        {
            string v = a[i];
            int j = i - 1;
            for (; j >= 0 && order.Compare(v, a[j]) < 0; j--)
                a[j + 1] = a[j];
            a[j + 1] = v;
        }
    }

    public static int Search(int[] a, int key)
    {
        int lo = 0, hi = a.Length - 1;
        while (lo <= hi)
        {
            int mid = lo + (hi - lo) / 2;
            if (a[mid] == key) return mid;
            if (a[mid] < key) lo = mid + 1;
            else hi = mid - 1;
        }
        return -(lo + 1);
    }
}

static class Program
{
    static int seed;

    static int[] Random(int n, int range)
    {
        int[] a = new int[n];
        for (int i = 0; i < n; i++)
        {
            seed = seed * 1664525 + 1013904223;
            a[i] = (int)((uint)seed % (uint)range) - range / 4;
        }
        return a;
    }

    static int[] Copy(int[] a)
    {
        int[] b = new int[a.Length];
        for (int i = 0; i < a.Length; i++) b[i] = a[i];
        return b;
    }

    static bool Same(int[] a, int[] b)
    {
        if (a.Length != b.Length) return false;
        for (int i = 0; i < a.Length; i++)
            if (a[i] != b[i]) return false;
        return true;
    }

    static long Checksum(int[] a)
    {
        long h = 17;
        foreach (int v in a) h = h * 31 + v;
        return h;
    }

    static int Main()
    {
        seed = 42;
        int[] sizes = new int[6];
        sizes[3] = 7;
        sizes[2] = 2;
        sizes[1] = 1;
        for (int i = 4; i < sizes.Length; i++) sizes[i] = sizes[i - 1] * 10 + (i == 4 ? 30 : 0);
        string[] names = { "insertion", "shell", "heap", "merge", "quick", "counting" };
        int bad = 0;
        foreach (int n in sizes)
        {
            int[] data = Random(n, 3 * n + 5);
            int[] reference = null;
            Console.WriteLine("n = " + n);
            for (int s = 0; s < names.Length; s++)
            {
                int[] a = Copy(data);
                Sorts.Comparisons = 0;
                switch (s)
                {
                    case 0: Sorts.Insertion(a); break;
                    case 1: Sorts.Shell(a); break;
                    case 2: Sorts.Heap(a); break;
                    case 3: Sorts.Merge(a); break;
                    case 4: Sorts.Quick(a); break;
                    default: Sorts.Counting(a); break;
                }
                if (reference == null) reference = a;
                bool ok = Same(a, reference);
                if (!ok) bad++;
                Console.Write("  " + names[s]);
                Console.Write(new string(' ', 10 - names[s].Length));
                Console.Write(ok ? "ok  " : "BAD ");
                Console.WriteLine(Sorts.Comparisons);
            }
            Console.WriteLine("  checksum " + Checksum(reference));
            if (n >= 100)
            {
                int hits = 0;
                for (int key = -50; key < 50; key++)
                    if (Sorts.Search(reference, key) >= 0) hits++;
                Console.WriteLine("  keys found in -50..49: " + hits);
            }
        }

        string[] words = { "delta", "Alpha", "charlie", "bravo", "Echo", "alpha", "foxtrot", "Golf", "ECHO", "hotel", "india" };
        IStringOrder[] orders = { new Ordinal(), new IgnoreCase(), new ByLength(new IgnoreCase()) };
        foreach (IStringOrder o in orders)
        {
            string[] w = new string[words.Length];
            for (int i = 0; i < w.Length; i++) w[i] = words[i];
            Sorts.Strings(w, o);
            string line = w[0];
            for (int i = 1; i < w.Length; i++) line = line + " " + w[i];
            Console.WriteLine(line);
        }
        return bad;
    }
}
