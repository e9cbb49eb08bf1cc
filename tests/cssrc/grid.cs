// Grids on jagged arrays: Conway's game of life on a wrapping board
// (bool[][], neighbours counted with nested loops and continue), a maze
// parsed from strings and solved by breadth-first search with an int
// queue and a parent array, the path drawn back into char[][] rows, and
// flood-fill counting of regions by recursion.
using System;

static class Life
{
    public static bool[][] Parse(string[] rows)
    {
        bool[][] g = new bool[rows.Length][];
        for (int y = 0; y < rows.Length; y++)
        {
            g[y] = new bool[rows[y].Length];
            for (int x = 0; x < rows[y].Length; x++)
                g[y][x] = rows[y][x] == '#';
        }
        return g;
    }

    public static bool[][] Step(bool[][] g)
    {
        int h = g.Length, w = g[0].Length;
        bool[][] next = new bool[h][];
        for (int y = 0; y < h; y++)
        {
            next[y] = new bool[w];
            for (int x = 0; x < w; x++)
            {
                int n = 0;
                for (int dy = -1; dy <= 1; dy++)
                {
                    for (int dx = -1; dx <= 1; dx++)
                    {
                        if (dx == 0 && dy == 0) continue;
                        if (g[(y + dy + h) % h][(x + dx + w) % w]) n++;
                    }
                }
                next[y][x] = n == 3 || (n == 2 && g[y][x]);
            }
        }
        return next;
    }

    public static int Population(bool[][] g)
    {
        int n = 0;
        foreach (bool[] row in g)
            foreach (bool b in row)
                if (b) n++;
        return n;
    }

    public static void Print(bool[][] g)
    {
        foreach (bool[] row in g)
        {
            char[] line = new char[row.Length];
            for (int x = 0; x < row.Length; x++) line[x] = row[x] ? '#' : '.';
            Console.WriteLine(Chars(line));
        }
    }

    public static string Chars(char[] cs)
    {
        string[] parts = new string[cs.Length];
        for (int i = 0; i < cs.Length; i++) parts[i] = new string(cs[i], 1);
        return string.Concat(parts);
    }
}

class Maze
{
    char[][] cells;
    int h, w;
    public int StartX, StartY, EndX, EndY;

    public Maze(string[] rows)
    {
        h = rows.Length;
        w = rows[0].Length;
        cells = new char[h][];
        for (int y = 0; y < h; y++)
        {
            if (rows[y].Length != w) throw new ArgumentException("wrong width in row " + y);
            cells[y] = new char[w];
            for (int x = 0; x < w; x++)
            {
                char c = rows[y][x];
                if (c == 'S') { StartX = x; StartY = y; }
                else if (c == 'E') { EndX = x; EndY = y; }
                cells[y][x] = c;
            }
        }
    }

    // Solve returns the length of the shortest path, or -1, and marks it.
    public int Solve()
    {
        int[] parent = new int[w * h];
        for (int i = 0; i < parent.Length; i++) parent[i] = -2;
        int[] queue = new int[w * h];
        int head = 0, tail = 0;
        int start = StartY * w + StartX, end = EndY * w + EndX;
        queue[tail++] = start;
        parent[start] = -1;
        while (head < tail)
        {
            int cur = queue[head++];
            if (cur == end) break;
            int cx = cur % w, cy = cur / w;
            for (int d = 0; d < 4; d++)
            {
                int nx = cx, ny = cy;
                switch (d)
                {
                    case 0: nx++; break;
                    case 1: ny++; break;
                    case 2: nx--; break;
                    case 3: ny--; break;
                }
                if (nx < 0 || ny < 0 || nx >= w || ny >= h) continue;
                if (cells[ny][nx] == '#') continue;
                int k = ny * w + nx;
                if (parent[k] != -2) continue;
                parent[k] = cur;
                queue[tail++] = k;
            }
        }
        if (parent[end] == -2) return -1;
        int length = 0;
        for (int p = parent[end]; p != start; p = parent[p])
        {
            cells[p / w][p % w] = '*';
            length++;
        }
        return length + 1;
    }

    public int Regions()
    {
        bool[][] seen = new bool[h][];
        for (int y = 0; y < h; y++) seen[y] = new bool[w];
        int regions = 0;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                if (cells[y][x] != '#' && !seen[y][x])
                {
                    regions++;
                    Fill(seen, x, y);
                }
        return regions;
    }

    void Fill(bool[][] seen, int x, int y)
    {
        if (x < 0 || y < 0 || x >= w || y >= h || seen[y][x] || cells[y][x] == '#') return;
        seen[y][x] = true;
        Fill(seen, x + 1, y);
        Fill(seen, x - 1, y);
        Fill(seen, x, y + 1);
        Fill(seen, x, y - 1);
    }

    public void Print()
    {
        foreach (char[] row in cells) Console.WriteLine(Life.Chars(row));
    }
}

static class Program
{
    static int Main()
    {
        string[] glider = {
            "..........",
            "...#......",
            "....#.....",
            "..###.....",
            "..........",
            "......##..",
            "......##..",
            "..........",
        };
        bool[][] g = Life.Parse(glider);
        for (int gen = 0; gen <= 8; gen++)
        {
            if (gen % 4 == 0)
            {
                Console.Write("generation " + gen);
                Console.WriteLine(", population " + Life.Population(g));
                Life.Print(g);
            }
            g = Life.Step(g);
        }

        string[] rows = {
            "##########",
            "#S   #   #",
            "# ## # # #",
            "#  #   # #",
            "## ##### #",
            "#  #   # #",
            "# ## # # #",
            "#    #  E#",
            "##########",
        };
        Maze m = new Maze(rows);
        Console.WriteLine("regions: " + m.Regions());
        int len = m.Solve();
        Console.WriteLine("shortest path: " + len);
        m.Print();

        string[] blocked = { "#####", "#S#E#", "#####" };
        Maze b = new Maze(blocked);
        Console.Write("blocked: " + b.Solve());
        Console.WriteLine(", regions " + b.Regions());
        try
        {
            new Maze(new string[] { "###", "#S", "###" });
        }
        catch (ArgumentException e)
        {
            Console.WriteLine(e.Message);
        }
        return len;
    }
}
