// A hash map in the style of .NET's own Dictionary: an array of Entry
// structs (key, value, hash, next index) chained from an int[] of
// buckets, entries updated in place (entries[i].Value += n, through
// ldelema), a free list for removals, resizing that copies the structs,
// compound assignments on int array elements (counts[k]++, through
// ldelema and ldind/stind), an enumerator struct with a MoveNext that
// changes its own fields, and StringBuilder/int.ToString() output.
using System;
using System.Text;

struct Entry
{
    public string Key;
    public int Value;
    public int Hash;
    public int Next;
}

class Map
{
    int[] buckets;
    Entry[] entries;
    int count, freeList, freeCount;
    public int Collisions;

    public Map(int capacity)
    {
        buckets = new int[capacity];
        entries = new Entry[capacity];
        for (int i = 0; i < buckets.Length; i++) buckets[i] = -1;
        freeList = -1;
    }

    public int Count { get { return count - freeCount; } }

    static int HashOf(string s)
    {
        int h = -2128831035;
        foreach (char c in s) h = (h ^ c) * 16777619;
        return h & 0x7fffffff;
    }

    int Find(string key, int hash)
    {
        for (int i = buckets[hash % buckets.Length]; i >= 0; i = entries[i].Next)
            if (entries[i].Hash == hash && entries[i].Key == key) return i;
        return -1;
    }

    public void Add(string key, int delta)
    {
        int hash = HashOf(key);
        int i = Find(key, hash);
        if (i >= 0)
        {
            entries[i].Value += delta;
            return;
        }
        if (freeCount > 0)
        {
            i = freeList;
            freeList = entries[i].Next;
            freeCount--;
        }
        else
        {
            if (count == entries.Length) Resize();
            i = count++;
        }
        int b = hash % buckets.Length;
        if (buckets[b] >= 0) Collisions++;
        entries[i].Key = key;
        entries[i].Value = delta;
        entries[i].Hash = hash;
        entries[i].Next = buckets[b];
        buckets[b] = i;
    }

    public bool TryGet(string key, out int value)
    {
        int i = Find(key, HashOf(key));
        value = i >= 0 ? entries[i].Value : 0;
        return i >= 0;
    }

    public bool Remove(string key)
    {
        int hash = HashOf(key);
        int b = hash % buckets.Length;
        int prev = -1;
        for (int i = buckets[b]; i >= 0; prev = i, i = entries[i].Next)
        {
            if (entries[i].Hash != hash || !(entries[i].Key == key)) continue;
            if (prev < 0) buckets[b] = entries[i].Next;
            else entries[prev].Next = entries[i].Next;
            entries[i] = new Entry();
            entries[i].Next = freeList;
            entries[i].Hash = -1;
            freeList = i;
            freeCount++;
            return true;
        }
        return false;
    }

    void Resize()
    {
        int size = entries.Length * 2 + 1;
        Entry[] bigger = new Entry[size];
        for (int i = 0; i < count; i++) bigger[i] = entries[i];
        entries = bigger;
        buckets = new int[size];
        for (int i = 0; i < size; i++) buckets[i] = -1;
        for (int i = 0; i < count; i++)
        {
            int b = entries[i].Hash % size;
            entries[i].Next = buckets[b];
            buckets[b] = i;
        }
    }

    public MapEnumerator GetEnumerator() { return new MapEnumerator(entries, count); }
}

struct MapEnumerator
{
    Entry[] entries;
    int count, index;
    public MapEnumerator(Entry[] entries, int count) { this.entries = entries; this.count = count; index = -1; }
    public bool MoveNext()
    {
        while (++index < count)
            if (entries[index].Hash >= 0) return true;
        return false;
    }
    public string Key { get { return entries[index].Key; } }
    public int Value { get { return entries[index].Value; } }
}

static class Program
{
    static string Sorted(string w)
    {
        char[] cs = new char[w.Length];
        for (int i = 0; i < cs.Length; i++) cs[i] = w[i];
        for (int i = 1; i < cs.Length; i++)
            for (int j = i; j > 0 && cs[j] < cs[j - 1]; j--)
            {
                char t = cs[j]; cs[j] = cs[j - 1]; cs[j - 1] = t;
            }
        StringBuilder sb = new StringBuilder(cs.Length);
        foreach (char c in cs) sb.Append(c);
        return sb.ToString();
    }

    static int Main()
    {
        string text = "the cat sat on the mat the rat ate the oat and the tar was a tab on the bat listen silent enlist tinsel inlets google banana";
        Map words = new Map(3);
        int[] lengths = new int[10];
        int start = 0;
        for (int i = 0; i <= text.Length; i++)
        {
            if (i < text.Length && text[i] != ' ') continue;
            string w = text.Substring(start, i - start);
            words.Add(w, 1);
            lengths[w.Length]++;
            start = i + 1;
        }
        Console.WriteLine("distinct words: " + words.Count.ToString() + ", collisions " + words.Collisions.ToString());
        int v;
        string[] probe = { "the", "cat", "dog", "tinsel" };
        foreach (string p in probe)
            Console.WriteLine(p + ": " + (words.TryGet(p, out v) ? v.ToString() : "absent"));

        StringBuilder hist = new StringBuilder(16);
        hist.Append("lengths:");
        for (int l = 1; l < lengths.Length; l++)
            if (lengths[l] > 0) hist.Append(' ').Append(l).Append('x').Append(lengths[l]);
        Console.WriteLine(hist.ToString());

        words.Add("the", 100);
        words.Remove("cat");
        words.Remove("nothing");
        words.Remove("mat");
        words.Add("dog", 2);
        words.Add("cow", 3);
        StringBuilder all = new StringBuilder();
        long sum = 0;
        MapEnumerator it = words.GetEnumerator();
        MapEnumerator again = it;
        while (it.MoveNext())
        {
            all.Append(it.Key).Append('=').Append(it.Value).Append(' ');
            sum += it.Value;
        }
        int n = 0;
        while (again.MoveNext()) n++;
        Console.WriteLine(all.ToString());
        Console.WriteLine("sum " + sum.ToString() + ", count " + words.Count.ToString() + ", the copied enumerator saw " + n.ToString());

        Map anagrams = new Map(4);
        Map first = new Map(4);
        start = 0;
        for (int i = 0; i <= text.Length; i++)
        {
            if (i < text.Length && text[i] != ' ') continue;
            string w = text.Substring(start, i - start);
            start = i + 1;
            if (w.Length < 3) continue;
            string key = Sorted(w);
            int seen;
            if (first.TryGet(w, out seen)) continue;
            first.Add(w, 1);
            anagrams.Add(key, 1);
        }
        MapEnumerator a = anagrams.GetEnumerator();
        int groups = 0;
        while (a.MoveNext())
        {
            if (a.Value < 2) continue;
            groups++;
            Console.WriteLine("anagram group " + a.Key + ": " + a.Value.ToString() + " words");
        }
        return groups;
    }
}
