// An arithmetic expression evaluator: a tokenizer over get_Chars, a
// recursive-descent parser building an AST of abstract/virtual node
// classes, Int32.Parse, a custom exception for syntax errors, and
// String.Concat of objects and strings to print the results.
using System;

class SyntaxError : Exception
{
    public int Position;
    public SyntaxError(string message, int position) : base(message)
    {
        Position = position;
    }
}

class Token
{
    public int Kind; // 0 number, 1 operator, 2 lparen, 3 rparen, 4 identifier, 5 end
    public string Text;
    public int Pos;
    public Token(int kind, string text, int pos) { Kind = kind; Text = text; Pos = pos; }
}

static class Lexer
{
    static bool IsDigit(char c) { return c >= '0' && c <= '9'; }
    static bool IsLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }

    public static Token[] Tokenize(string s)
    {
        Token[] buf = new Token[4];
        int n = 0;
        int i = 0;
        while (true)
        {
            while (i < s.Length && s[i] == ' ') i++;
            Token t;
            if (i >= s.Length)
            {
                t = new Token(5, "<end>", i);
            }
            else
            {
                char c = s[i];
                int start = i;
                if (IsDigit(c))
                {
                    while (i < s.Length && IsDigit(s[i])) i++;
                    t = new Token(0, s.Substring(start, i - start), start);
                }
                else if (IsLetter(c))
                {
                    while (i < s.Length && (IsLetter(s[i]) || IsDigit(s[i]))) i++;
                    t = new Token(4, s.Substring(start, i - start), start);
                }
                else
                {
                    switch (c)
                    {
                        case '+': case '-': case '*': case '/': case '%': case '^':
                            t = new Token(1, s.Substring(i, 1), i);
                            break;
                        case '(':
                            t = new Token(2, "(", i);
                            break;
                        case ')':
                            t = new Token(3, ")", i);
                            break;
                        default:
                            throw new SyntaxError("unexpected character " + c, i);
                    }
                    i++;
                }
            }
            if (n == buf.Length)
            {
                Token[] bigger = new Token[buf.Length * 2];
                for (int k = 0; k < n; k++) bigger[k] = buf[k];
                buf = bigger;
            }
            buf[n++] = t;
            if (t.Kind == 5) break;
        }
        Token[] result = new Token[n];
        for (int k = 0; k < n; k++) result[k] = buf[k];
        return result;
    }
}

abstract class Node
{
    public abstract int Eval(Env env);
    public abstract string Show();
}

class Num : Node
{
    int value;
    public Num(int v) { value = v; }
    public override int Eval(Env env) { return value; }
    public override string Show() { return ((object)value).ToString(); }
}

class Var : Node
{
    string name;
    public Var(string n) { name = n; }
    public override int Eval(Env env) { return env.Lookup(name); }
    public override string Show() { return name; }
}

class Neg : Node
{
    Node inner;
    public Neg(Node n) { inner = n; }
    public override int Eval(Env env) { return -inner.Eval(env); }
    public override string Show() { return "(-" + inner.Show() + ")"; }
}

class Bin : Node
{
    string opText;
    char op;
    Node left, right;
    public Bin(string op, Node l, Node r) { opText = op; this.op = op[0]; left = l; right = r; }
    public override int Eval(Env env)
    {
        int a = left.Eval(env);
        int b = right.Eval(env);
        switch (op)
        {
            case '+': return a + b;
            case '-': return a - b;
            case '*': return a * b;
            case '/': return a / b;
            case '%': return a % b;
            case '^':
                int r = 1;
                for (int i = 0; i < b; i++) r *= a;
                return r;
        }
        throw new InvalidOperationException("bad operator");
    }
    public override string Show()
    {
        return "(" + left.Show() + " " + opText + " " + right.Show() + ")";
    }
}

class Env
{
    string[] names = new string[8];
    int[] values = new int[8];
    int count;
    public void Set(string name, int v)
    {
        for (int i = 0; i < count; i++)
            if (names[i] == name) { values[i] = v; return; }
        names[count] = name;
        values[count] = v;
        count++;
    }
    public int Lookup(string name)
    {
        for (int i = 0; i < count; i++)
            if (names[i] == name) return values[i];
        throw new ArgumentException("unknown variable " + name);
    }
}

class Parser
{
    Token[] toks;
    int p;
    public Parser(Token[] t) { toks = t; }

    Token Peek() { return toks[p]; }
    Token Next() { return toks[p++]; }

    bool IsOp(string op)
    {
        Token t = toks[p];
        return t.Kind == 1 && t.Text == op;
    }

    public Node ParseAll()
    {
        Node n = ParseSum();
        if (Peek().Kind != 5)
            throw new SyntaxError("unexpected " + Peek().Text, Peek().Pos);
        return n;
    }

    Node ParseSum()
    {
        Node left = ParseProduct();
        while (IsOp("+") || IsOp("-"))
        {
            string op = Next().Text;
            left = new Bin(op, left, ParseProduct());
        }
        return left;
    }

    Node ParseProduct()
    {
        Node left = ParseUnary();
        while (IsOp("*") || IsOp("/") || IsOp("%"))
        {
            string op = Next().Text;
            left = new Bin(op, left, ParseUnary());
        }
        return left;
    }

    Node ParseUnary()
    {
        if (IsOp("-"))
        {
            Next();
            return new Neg(ParseUnary());
        }
        return ParsePower();
    }

    Node ParsePower()
    {
        Node b = ParseAtom();
        if (IsOp("^"))
        {
            Next();
            return new Bin("^", b, ParseUnary());
        }
        return b;
    }

    Node ParseAtom()
    {
        Token t = Next();
        switch (t.Kind)
        {
            case 0:
                return new Num(int.Parse(t.Text));
            case 4:
                return new Var(t.Text);
            case 2:
                Node inner = ParseSum();
                Token close = Next();
                if (close.Kind != 3)
                    throw new SyntaxError("expected )", close.Pos);
                return inner;
            default:
                throw new SyntaxError("unexpected " + t.Text, t.Pos);
        }
    }
}

static class Program
{
    static int Run(string src, Env env)
    {
        try
        {
            Node n = new Parser(Lexer.Tokenize(src)).ParseAll();
            int v = n.Eval(env);
            Console.Write(n.Show() + " = ");
            Console.WriteLine(v);
            return v;
        }
        catch (SyntaxError e) when (e.Position > 0)
        {
            Console.Write("syntax error at " + e.Position);
            Console.WriteLine(": " + e.Message);
            Console.WriteLine("  " + src);
            Console.WriteLine("  " + new string(' ', e.Position) + "^");
        }
        catch (SyntaxError e)
        {
            Console.WriteLine("syntax error at start: " + e.Message);
        }
        catch (DivideByZeroException)
        {
            Console.WriteLine(src + ": division by zero");
        }
        catch (ArgumentException e)
        {
            Console.WriteLine(src + ": " + e.Message);
        }
        return 0;
    }

    static int Main()
    {
        Env env = new Env();
        env.Set("x", 7);
        env.Set("y", -3);
        env.Set("width", 12);
        string[] programs = new string[] {
            "1 + 2 * 3",
            "(1 + 2) * 3",
            "2 ^ 3 ^ 2",
            "-x * y + width",
            "width % 5 - -4",
            "100 / (x - 7)",
            "3 + * 4",
            "(1 + 2",
            "4 $ 4",
            "z + 1",
            ")",
            "((((x))))*((y))",
            "2 ^ 10 - 1000 / 3 % 7",
        };
        int sum = 0;
        foreach (string p in programs)
            sum += Run(p, env);
        Console.WriteLine("sum of results: " + sum);
        return sum & 0x7f;
    }
}
