// Text statistics over a few paragraphs: splitting into words and
// sentences with get_Chars and Substring, a word-frequency table (an
// open-addressing hash table of strings with its own hash function),
// letter counts in a jagged array per paragraph, the longest words, a
// histogram drawn with new string(c, n), and ToUpperInvariant/IndexOf.
using System;

class WordTable
{
    string[] keys = new string[16];
    int[] counts = new int[16];
    public int Size;
    public int Probes;

    static int Hash(string s)
    {
        int h = 5381;
        for (int i = 0; i < s.Length; i++)
            h = h * 33 ^ s[i];
        return h & 0x7fffffff;
    }

    public void Add(string w)
    {
        if (Size * 2 >= keys.Length) Grow();
        int i = Hash(w) % keys.Length;
        while (keys[i] != null)
        {
            Probes++;
            if (keys[i] == w)
            {
                counts[i] = counts[i] + 1;
                return;
            }
            i = (i + 1) % keys.Length;
        }
        keys[i] = w;
        counts[i] = 1;
        Size++;
    }

    public int Count(string w)
    {
        int i = Hash(w) % keys.Length;
        while (keys[i] != null)
        {
            if (keys[i].Equals(w)) return counts[i];
            i = (i + 1) % keys.Length;
        }
        return 0;
    }

    void Grow()
    {
        string[] oldKeys = keys;
        int[] oldCounts = counts;
        keys = new string[oldKeys.Length * 2];
        counts = new int[oldKeys.Length * 2];
        for (int j = 0; j < oldKeys.Length; j++)
        {
            string k = oldKeys[j];
            if (k == null) continue;
            int i = Hash(k) % keys.Length;
            while (keys[i] != null) i = (i + 1) % keys.Length;
            keys[i] = k;
            counts[i] = oldCounts[j];
        }
    }

    // Top returns the n most frequent words, ties in alphabetical order.
    public string[] Top(int n)
    {
        string[] best = new string[n];
        int[] bestCount = new int[n];
        for (int j = 0; j < keys.Length; j++)
        {
            if (keys[j] == null) continue;
            int c = counts[j];
            string k = keys[j];
            for (int p = 0; p < n; p++)
            {
                if (best[p] == null || c > bestCount[p] || (c == bestCount[p] && string.CompareOrdinal(k, best[p]) < 0))
                {
                    for (int q = n - 1; q > p; q--)
                    {
                        best[q] = best[q - 1];
                        bestCount[q] = bestCount[q - 1];
                    }
                    best[p] = k;
                    bestCount[p] = c;
                    break;
                }
            }
        }
        return best;
    }
}

static class Text
{
    public static bool IsLetter(char c)
    {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '\'';
    }

    public static string[] Words(string s)
    {
        int n = 0;
        for (int i = 0; i < s.Length; i++)
            if (IsLetter(s[i]) && (i == 0 || !IsLetter(s[i - 1]))) n++;
        string[] words = new string[n];
        int k = 0, start = -1;
        for (int i = 0; i <= s.Length; i++)
        {
            bool letter = i < s.Length && IsLetter(s[i]);
            if (letter && start < 0) start = i;
            else if (!letter && start >= 0)
            {
                words[k++] = s.Substring(start, i - start).ToLowerInvariant();
                start = -1;
            }
        }
        return words;
    }

    public static int Sentences(string s)
    {
        int n = 0;
        for (int i = 0; i < s.Length; i++)
        {
            switch (s[i])
            {
                case '.':
                case '!':
                case '?':
                    n++;
                    break;
            }
        }
        return n;
    }

    public static string Pad(string s, int width)
    {
        return s.Length >= width ? s : s + new string(' ', width - s.Length);
    }
}

static class Program
{
    static int Main()
    {
        string[] paragraphs = {
            "The quick brown fox jumps over the lazy dog. The dog sleeps! Does the fox care? No.",
            "A compiler turns source text into code. The JIT compiles each method the first time it is called, " +
            "and the interpreter runs the same code one instruction at a time.",
            "It's a truth universally acknowledged that a program in possession of a good test suite must be in want of a bug.",
            "Short one.",
        };

        WordTable table = new WordTable();
        int[][] letters = new int[paragraphs.Length][];
        int totalWords = 0;
        string longest = null;
        for (int p = 0; p < paragraphs.Length; p++)
        {
            string text = paragraphs[p];
            string[] words = Text.Words(text);
            totalWords += words.Length;
            letters[p] = new int[26];
            foreach (string w in words)
            {
                table.Add(w);
                if (longest == null || w.Length > longest.Length) longest = w;
                foreach (char c in w)
                {
                    if (c == '\'') continue;
                    int[] row = letters[p];
                    row[c - 'a'] = row[c - 'a'] + 1;
                }
            }
            Console.Write("paragraph " + (p + 1));
            Console.Write(": " + words.Length);
            Console.Write(" words, " + Text.Sentences(text));
            Console.WriteLine(" sentences");
        }
        Console.WriteLine("words: " + totalWords);
        Console.WriteLine("distinct: " + table.Size);
        Console.WriteLine("longest: " + longest.ToUpperInvariant());
        Console.WriteLine("'the' occurs: " + table.Count("the"));
        Console.WriteLine("'zebra' occurs: " + table.Count("zebra"));

        Console.WriteLine("top words:");
        string[] top = table.Top(6);
        foreach (string w in top)
        {
            int c = table.Count(w);
            Console.Write("  " + Text.Pad(w, 10) + new string('#', c));
            Console.WriteLine(" " + w.Length);
        }

        Console.WriteLine("letters (all paragraphs):");
        for (int l = 0; l < 26; l++)
        {
            int sum = 0;
            for (int p = 0; p < letters.Length; p++) sum += letters[p][l];
            if (sum == 0) continue;
            char letter = (char)('a' + l);
            string bar = new string('*', (sum + 1) / 2);
            Console.Write(letter);
            Console.Write(' ');
            Console.Write(bar);
            Console.WriteLine(" " + sum);
        }

        string all = paragraphs[1];
        int pos = all.IndexOf("the");
        int hits = 0;
        while (pos >= 0)
        {
            hits++;
            pos = all.IndexOf("the", pos + 1);
        }
        Console.WriteLine("'the' substrings in paragraph 2: " + hits);
        Console.WriteLine("first comma at " + all.IndexOf(','));
        return table.Probes % 100;
    }
}
