// StringBuilder at work: a table formatter that pads and aligns columns
// (Append of string, char, int, long, double and object, Append(char,
// repeat) avoided, Length to measure, Clear to reuse one builder),
// a CSV reader that builds fields char by char with quoted fields, and a
// word-wrapping function; numbers printed through int.ToString() and
// long.ToString(), doubles only where they print the same everywhere.
using System;
using System.Text;

class Column
{
    public string Title;
    public bool Right;
    public int Width;
    public Column(string title, bool right) { Title = title; Right = right; Width = title.Length; }
}

class Table
{
    Column[] cols;
    string[][] rows = new string[4][];
    int count;
    StringBuilder sb = new StringBuilder(64);

    public Table(Column[] cols) { this.cols = cols; }

    public void Add(string[] cells)
    {
        if (cells.Length != cols.Length) throw new ArgumentException("expected " + cols.Length.ToString() + " cells");
        if (count == rows.Length)
        {
            string[][] bigger = new string[count * 2][];
            for (int i = 0; i < count; i++) bigger[i] = rows[i];
            rows = bigger;
        }
        rows[count++] = cells;
        for (int i = 0; i < cells.Length; i++)
            if (cells[i].Length > cols[i].Width) cols[i].Width = cells[i].Length;
    }

    void Pad(int n)
    {
        for (int i = 0; i < n; i++) sb.Append(' ');
    }

    void Line(string[] cells)
    {
        sb.Clear();
        sb.Append('|');
        for (int i = 0; i < cols.Length; i++)
        {
            sb.Append(' ');
            int gap = cols[i].Width - cells[i].Length;
            if (cols[i].Right) Pad(gap);
            sb.Append(cells[i]);
            if (!cols[i].Right) Pad(gap);
            sb.Append(" |");
        }
        Console.WriteLine(sb.ToString());
    }

    public int Print()
    {
        string[] titles = new string[cols.Length];
        for (int i = 0; i < cols.Length; i++) titles[i] = cols[i].Title;
        Line(titles);
        sb.Clear();
        sb.Append('|');
        foreach (Column c in cols)
        {
            for (int i = 0; i < c.Width + 2; i++) sb.Append(c.Right && i == c.Width + 1 ? ':' : '-');
            sb.Append('|');
        }
        int width = sb.Length;
        Console.WriteLine(sb.ToString());
        for (int r = 0; r < count; r++) Line(rows[r]);
        return width;
    }
}

static class Csv
{
    public static string[] Split(string line)
    {
        string[] fields = new string[8];
        int n = 0;
        StringBuilder field = new StringBuilder();
        bool quoted = false;
        for (int i = 0; i <= line.Length; i++)
        {
            char c = i < line.Length ? line[i] : '\n';
            if (quoted)
            {
                if (c == '"')
                {
                    if (i + 1 < line.Length && line[i + 1] == '"') { field.Append('"'); i++; }
                    else quoted = false;
                }
                else if (c == '\n') throw new FormatException("unterminated quote");
                else field.Append(c);
                continue;
            }
            switch (c)
            {
                case '"':
                    quoted = true;
                    break;
                case ',':
                case '\n':
                    fields[n++] = field.ToString();
                    field.Clear();
                    break;
                default:
                    field.Append(c);
                    break;
            }
        }
        string[] result = new string[n];
        for (int i = 0; i < n; i++) result[i] = fields[i];
        return result;
    }
}

static class Wrap
{
    public static string Text(string s, int width)
    {
        StringBuilder output = new StringBuilder();
        StringBuilder line = new StringBuilder();
        int i = 0;
        while (i < s.Length)
        {
            while (i < s.Length && s[i] == ' ') i++;
            int start = i;
            while (i < s.Length && s[i] != ' ') i++;
            if (i == start) break;
            string word = s.Substring(start, i - start);
            if (line.Length > 0 && line.Length + 1 + word.Length > width)
            {
                output.Append(line.ToString()).Append('\n');
                line.Clear();
            }
            if (line.Length > 0) line.Append(' ');
            line.Append(word);
        }
        if (line.Length > 0) output.Append(line.ToString());
        return output.ToString();
    }
}

static class Program
{
    static int Main()
    {
        string[] csv = {
            "name,qty,price,note",
            "widget,12,250,\"small, blue\"",
            "gadget,3,12999,\"says \"\"hi\"\"\"",
            "doohickey,140,5,",
            "thingamajig,1,1000000,\"\"",
        };
        Column[] cols = new Column[5];
        string[] head = Csv.Split(csv[0]);
        for (int i = 0; i < head.Length; i++) cols[i] = new Column(head[i], i == 1 || i == 2);
        cols[4] = new Column("total", true);
        Table t = new Table(cols);
        long grand = 0;
        for (int r = 1; r < csv.Length; r++)
        {
            string[] f = Csv.Split(csv[r]);
            int qty = int.Parse(f[1]);
            long price = long.Parse(f[2]);
            long total = qty * price;
            grand += total;
            string[] cells = new string[5];
            cells[0] = f[0];
            cells[1] = qty.ToString();
            cells[2] = (price / 100).ToString() + "." + (price % 100 < 10 ? "0" : null) + (price % 100).ToString();
            cells[3] = f[3];
            cells[4] = total.ToString();
            t.Add(cells);
        }
        int width = t.Print();
        Console.WriteLine("table width " + width.ToString() + ", grand total " + grand.ToString());

        StringBuilder sb = new StringBuilder();
        sb.Append("mixed: ").Append(42).Append(' ').Append(-7L).Append(' ').Append(2.5).Append(' ').Append(0.125).Append(' ');
        sb.Append((object)"obj").Append(' ').Append((object)true).Append(' ').Append(cols[0].Title.ToUpperInvariant());
        Console.WriteLine(sb.ToString());
        Console.WriteLine("length " + sb.Length.ToString());
        sb.Clear();
        Console.WriteLine("after Clear: [" + sb.ToString() + "] " + sb.Length.ToString());

        try
        {
            Csv.Split("a,\"b");
        }
        catch (FormatException e)
        {
            Console.WriteLine("csv: " + e.Message);
        }
        try
        {
            t.Add(new string[] { "x" });
        }
        catch (ArgumentException e)
        {
            Console.WriteLine("table: " + e.Message);
        }

        string text = "The quick brown fox jumps over the lazy dog while the compiler emits IL that the JIT turns into machine code, one method at a time.";
        for (int w = 16; w <= 40; w += 24)
        {
            Console.WriteLine("wrapped at " + w.ToString() + ":");
            string wrapped = Wrap.Text(text, w);
            Console.WriteLine(wrapped);
        }

        StringBuilder big = new StringBuilder(4);
        for (int i = 0; i < 1000; i++) big.Append(i % 10);
        string s = big.ToString();
        Console.WriteLine("1000 digits: " + s.Substring(0, 12) + "... length " + s.Length.ToString());
        return width;
    }
}
