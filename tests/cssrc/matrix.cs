// A small integer matrix library on jagged arrays (long[][]): products,
// transposes, powers by squaring (Fibonacci numbers from a 2x2 matrix),
// an exact determinant by fraction-free Gaussian elimination (Bareiss)
// with row swaps, checked arithmetic that overflows into a caught
// OverflowException, and ArgumentException for mismatched shapes.
using System;

class Matrix
{
    long[][] a;
    public int Rows, Cols;

    public Matrix(int rows, int cols)
    {
        Rows = rows;
        Cols = cols;
        a = new long[rows][];
        for (int i = 0; i < rows; i++) a[i] = new long[cols];
    }

    public static Matrix Identity(int n)
    {
        Matrix m = new Matrix(n, n);
        for (int i = 0; i < n; i++) m.a[i][i] = 1;
        return m;
    }

    // Parse reads rows separated by ';' and numbers by ','.
    public static Matrix Parse(string s)
    {
        int rows = 1;
        foreach (char c in s) if (c == ';') rows++;
        string[] lines = new string[rows];
        int r = 0, start = 0;
        for (int i = 0; i <= s.Length; i++)
        {
            if (i == s.Length || s[i] == ';')
            {
                lines[r++] = s.Substring(start, i - start);
                start = i + 1;
            }
        }
        Matrix m = null;
        for (r = 0; r < rows; r++)
        {
            string line = lines[r];
            int cols = 1;
            foreach (char c in line) if (c == ',') cols++;
            if (m == null) m = new Matrix(rows, cols);
            else if (cols != m.Cols) throw new ArgumentException("ragged row " + r);
            int col = 0;
            start = 0;
            for (int i = 0; i <= line.Length; i++)
            {
                if (i == line.Length || line[i] == ',')
                {
                    m.a[r][col++] = long.Parse(line.Substring(start, i - start));
                    start = i + 1;
                }
            }
        }
        return m;
    }

    public long Get(int i, int j) { return a[i][j]; }

    public Matrix Times(Matrix b)
    {
        if (Cols != b.Rows) throw new ArgumentException("cannot multiply " + Shape() + " by " + b.Shape());
        Matrix c = new Matrix(Rows, b.Cols);
        for (int i = 0; i < Rows; i++)
        {
            long[] row = a[i];
            long[] outRow = c.a[i];
            for (int j = 0; j < b.Cols; j++)
            {
                long sum = 0;
                for (int k = 0; k < Cols; k++)
                    sum = checked(sum + row[k] * b.a[k][j]);
                outRow[j] = sum;
            }
        }
        return c;
    }

    public Matrix Transpose()
    {
        Matrix t = new Matrix(Cols, Rows);
        for (int i = 0; i < Rows; i++)
            for (int j = 0; j < Cols; j++)
                t.a[j][i] = a[i][j];
        return t;
    }

    public Matrix Power(int e)
    {
        if (Rows != Cols) throw new ArgumentException("not square: " + Shape());
        Matrix result = Identity(Rows);
        Matrix b = this;
        while (e > 0)
        {
            if ((e & 1) != 0) result = result.Times(b);
            e >>= 1;
            if (e > 0) b = b.Times(b);
        }
        return result;
    }

    public long Determinant()
    {
        if (Rows != Cols) throw new ArgumentException("not square: " + Shape());
        int n = Rows;
        long[][] m = new long[n][];
        for (int i = 0; i < n; i++)
        {
            m[i] = new long[n];
            for (int j = 0; j < n; j++) m[i][j] = a[i][j];
        }
        long sign = 1, prev = 1;
        for (int k = 0; k < n - 1; k++)
        {
            if (m[k][k] == 0)
            {
                int swap = -1;
                for (int i = k + 1; i < n; i++)
                {
                    if (m[i][k] != 0) { swap = i; break; }
                }
                if (swap < 0) return 0;
                long[] t = m[k]; m[k] = m[swap]; m[swap] = t;
                sign = -sign;
            }
            for (int i = k + 1; i < n; i++)
                for (int j = k + 1; j < n; j++)
                    m[i][j] = (m[i][j] * m[k][k] - m[i][k] * m[k][j]) / prev;
            prev = m[k][k];
        }
        return sign * m[n - 1][n - 1];
    }

    public string Shape() { return Rows + "x" + Cols; }

    public void Print(string name)
    {
        Console.WriteLine(name + " (" + Shape() + "):");
        int width = 1;
        for (int i = 0; i < Rows; i++)
            for (int j = 0; j < Cols; j++)
                width = Math.Max(width, ((object)a[i][j]).ToString().Length);
        for (int i = 0; i < Rows; i++)
        {
            string line = " ";
            for (int j = 0; j < Cols; j++)
            {
                string cell = ((object)a[i][j]).ToString();
                line = line + " " + new string(' ', width - cell.Length) + cell;
            }
            Console.WriteLine(line);
        }
    }
}

static class Program
{
    static int Main()
    {
        Matrix a = Matrix.Parse("1,2,3;4,5,6");
        Matrix b = Matrix.Parse("7,8;9,10;11,12");
        a.Print("a");
        b.Print("b");
        a.Times(b).Print("a*b");
        b.Times(a).Print("b*a");
        a.Transpose().Print("a'");

        Matrix fib = Matrix.Parse("1,1;1,0");
        for (int n = 10; n <= 90; n += 40)
        {
            Console.Write("fib(" + n);
            Console.WriteLine(") = " + fib.Power(n).Get(0, 1));
        }

        string[] squares = { "2,0;0,3", "1,2;2,4", "0,1,2;1,0,3;4,-3,8", "2,-1,0,3;1,4,2,-2;0,5,-3,1;6,0,1,1", "0,0,1;0,1,0;1,0,0", "5" };
        long total = 0;
        foreach (string s in squares)
        {
            long d = Matrix.Parse(s).Determinant();
            total += d;
            Console.Write("det[" + s + "] = ");
            Console.WriteLine(d);
        }

        int failures = 0;
        string[] bad = { "1,2;3", "1,x;3,4" };
        foreach (string s in bad)
        {
            try
            {
                Matrix.Parse(s);
            }
            catch (ArgumentException e)
            {
                failures++;
                Console.WriteLine("parse: " + e.Message);
            }
            catch (FormatException)
            {
                failures++;
                Console.WriteLine("parse: not a number in " + s);
            }
        }
        try
        {
            a.Times(a);
        }
        catch (ArgumentException e)
        {
            failures++;
            Console.WriteLine(e.Message);
        }
        try
        {
            a.Power(2);
        }
        catch (ArgumentException e)
        {
            failures++;
            Console.WriteLine(e.Message);
        }
        try
        {
            Console.WriteLine("fib(91) = " + fib.Power(91).Get(0, 1));
            Console.WriteLine("fib(92) = " + fib.Power(92).Get(0, 1));
        }
        catch (OverflowException)
        {
            failures++;
            Console.WriteLine("the matrix for fib(92) holds fib(93), which overflows a long");
        }
        Console.WriteLine("sum of determinants: " + total);
        return failures;
    }
}
