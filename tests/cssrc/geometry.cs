// Geometry with System.Math: an abstract Shape with virtual Area and
// Perimeter, overridden in circles, rectangles, squares (a subclass of
// rectangles calling base constructors) and polygons (the shoelace
// formula over arrays of points); a convex hull by gift wrapping with
// Math.Atan2; distances with Math.Sqrt; results printed as rounded
// thousandths (integers), since Mono and CoreCLR print floats differently.
using System;

class Point
{
    public double X, Y;
    public Point(double x, double y) { X = x; Y = y; }
    public double Distance(Point p)
    {
        double dx = X - p.X, dy = Y - p.Y;
        return Math.Sqrt(dx * dx + dy * dy);
    }
    public override string ToString() { return "(" + Fmt.Milli(X) + ", " + Fmt.Milli(Y) + ")"; }
}

static class Fmt
{
    // Milli prints x with three decimals, rounded half to even.
    public static string Milli(double x)
    {
        long m = (long)Math.Round(x * 1000);
        string sign = m < 0 ? "-" : null;
        if (m < 0) m = -m;
        string frac = ((object)(m % 1000)).ToString();
        while (frac.Length < 3) frac = "0" + frac;
        return sign + m / 1000 + "." + frac;
    }
}

abstract class Shape
{
    public string Name;
    protected Shape(string name) { Name = name; }
    public abstract double Area();
    public abstract double Perimeter();
    public virtual string Describe()
    {
        return Name + ": area " + Fmt.Milli(Area()) + ", perimeter " + Fmt.Milli(Perimeter());
    }
}

class Circle : Shape
{
    double r;
    public Circle(double r) : base("circle") { this.r = r; }
    public override double Area() { return Math.PI * r * r; }
    public override double Perimeter() { return 2 * Math.PI * r; }
}

class Rect : Shape
{
    protected double w, h;
    public Rect(double w, double h) : this("rectangle", w, h) { }
    protected Rect(string name, double w, double h) : base(name) { this.w = w; this.h = h; }
    public override double Area() { return w * h; }
    public override double Perimeter() { return 2 * (w + h); }
    public double Diagonal() { return Math.Sqrt(w * w + h * h); }
}

class Square : Rect
{
    public Square(double side) : base("square", side, side) { }
    public override string Describe() { return base.Describe() + ", diagonal " + Fmt.Milli(Diagonal()); }
}

class Polygon : Shape
{
    protected Point[] pts;
    public Polygon(Point[] pts) : base("polygon") { this.pts = pts; }
    public override double Area()
    {
        double s = 0;
        for (int i = 0; i < pts.Length; i++)
        {
            Point a = pts[i], b = pts[(i + 1) % pts.Length];
            s += a.X * b.Y - b.X * a.Y;
        }
        return Math.Abs(s) / 2;
    }
    public override double Perimeter()
    {
        double p = 0;
        for (int i = 0; i < pts.Length; i++) p += pts[i].Distance(pts[(i + 1) % pts.Length]);
        return p;
    }
}

class RegularPolygon : Polygon
{
    public RegularPolygon(int n, double radius) : base(Make(n, radius)) { Name = "regular " + n + "-gon"; }
    static Point[] Make(int n, double radius)
    {
        Point[] p = new Point[n];
        for (int i = 0; i < n; i++)
        {
            double a = 2 * Math.PI * i / n;
            p[i] = new Point(radius * Math.Cos(a), radius * Math.Sin(a));
        }
        return p;
    }
}

static class Hull
{
    // Wrap returns the convex hull, counterclockwise, starting at the lowest point.
    public static Point[] Wrap(Point[] pts)
    {
        int start = 0;
        for (int i = 1; i < pts.Length; i++)
            if (pts[i].Y < pts[start].Y || (pts[i].Y == pts[start].Y && pts[i].X < pts[start].X)) start = i;
        Point[] hull = new Point[pts.Length];
        int n = 0;
        int cur = start;
        double heading = 0;
        do
        {
            hull[n++] = pts[cur];
            int best = -1;
            double bestTurn = 10, bestDist = 0;
            for (int i = 0; i < pts.Length; i++)
            {
                if (i == cur) continue;
                double ang = Math.Atan2(pts[i].Y - pts[cur].Y, pts[i].X - pts[cur].X);
                double turn = ang - heading;
                while (turn < -1e-12) turn += 2 * Math.PI;
                double d = pts[cur].Distance(pts[i]);
                if (turn < bestTurn - 1e-12 || (Math.Abs(turn - bestTurn) <= 1e-12 && d > bestDist))
                {
                    best = i;
                    bestTurn = turn;
                    bestDist = d;
                }
            }
            heading = Math.Atan2(pts[best].Y - pts[cur].Y, pts[best].X - pts[cur].X);
            cur = best;
        } while (cur != start && n < pts.Length);
        Point[] result = new Point[n];
        for (int i = 0; i < n; i++) result[i] = hull[i];
        return result;
    }
}

static class Program
{
    static int Main()
    {
        Shape[] shapes = {
            new Circle(1), new Circle(2.5), new Rect(3, 4), new Square(2),
            new RegularPolygon(6, 1), new RegularPolygon(100, 1),
            new Polygon(new Point[] { new Point(0, 0), new Point(4, 0), new Point(4, 3) }),
        };
        double total = 0;
        Shape biggest = null;
        foreach (Shape s in shapes)
        {
            Console.WriteLine(s.Describe());
            total += s.Area();
            if (biggest == null || s.Area() > biggest.Area()) biggest = s;
        }
        Console.WriteLine("total area " + Fmt.Milli(total));
        Console.WriteLine("biggest: " + biggest.Name);
        Console.WriteLine("100-gon vs circle perimeter, in millionths: " + (long)Math.Round((shapes[0].Perimeter() - shapes[5].Perimeter()) * 1e6));

        Point[] cloud = new Point[40];
        int seed = 2024;
        for (int i = 0; i < cloud.Length; i++)
        {
            seed = (seed * 1103515245 + 12345) & 0x7fffffff;
            double x = seed % 2001 / 100.0 - 10;
            seed = (seed * 1103515245 + 12345) & 0x7fffffff;
            double y = seed % 2001 / 100.0 - 10;
            cloud[i] = new Point(x, y);
        }
        Point[] hull = Hull.Wrap(cloud);
        Console.WriteLine("corners of the hull of 40 points: " + hull.Length);
        foreach (Point p in hull) Console.WriteLine("  " + p);
        Polygon hp = new Polygon(hull);
        Console.WriteLine("hull " + hp.Describe());

        double[] xs = new double[6];
        for (int i = 0; i < 5; i++) xs[i] = i < 3 ? i + 0.5 : 2.5 - i;
        xs[5] = 2.675;
        string line = "round:";
        foreach (double x in xs) line = line + " " + Fmt.Milli(Math.Round(x)) + "/" + Fmt.Milli(Math.Floor(x)) + "/" + Fmt.Milli(Math.Ceiling(x));
        Console.WriteLine(line);
        Console.WriteLine("pow " + Fmt.Milli(Math.Pow(2, 0.5)) + " exp " + Fmt.Milli(Math.Exp(1)) + " log10 " + Fmt.Milli(Math.Log10(12345)));
        return hull.Length;
    }
}
