// A vending machine as a state machine: integer states dispatched with
// switch statements (dense cases become the switch opcode), events read
// from a script string, a second machine (a lexer for number literals)
// driven by a transition table in a jagged array, a goto from a nested
// switch into another case, and an exception for events a state does not accept.
using System;

class BadEvent : Exception
{
    public BadEvent(string message) : base(message) { }
}

class Machine
{
    // states
    const int Idle = 0, HasMoney = 1, Vending = 2, OutOfOrder = 3, Maintenance = 4;

    int state;
    int credit;
    int[] stock = new int[4];
    int[] price = new int[4];
    public int Sales;
    public int Refunded;

    public Machine()
    {
        for (int i = 0; i < 4; i++)
        {
            stock[i] = 2 - i / 2;
            price[i] = 50 + 25 * i;
        }
    }

    static string StateName(int s)
    {
        switch (s)
        {
            case Idle: return "idle";
            case HasMoney: return "has-money";
            case Vending: return "vending";
            case OutOfOrder: return "out-of-order";
            case Maintenance: return "maintenance";
        }
        return "?";
    }

    public void Handle(char ev, int arg)
    {
        switch (state)
        {
            case Idle:
                switch (ev)
                {
                    case 'c': credit = arg; state = HasMoney; break;
                    case 'm': state = Maintenance; break;
                    case 'k': state = OutOfOrder; break;
                    default: throw new BadEvent("idle machine ignores " + ev);
                }
                break;
            case HasMoney:
                switch (ev)
                {
                    case 'c': credit += arg; break;
                    case 'r': Refund(); state = Idle; break;
                    case 's':
                        if (arg < 0 || arg >= stock.Length) throw new BadEvent("no slot " + arg);
                        if (stock[arg] == 0) { Console.WriteLine("  empty slot " + arg); break; }
                        if (credit < price[arg]) { Console.WriteLine("  missing " + (price[arg] - credit)); break; }
                        credit -= price[arg];
                        stock[arg] = stock[arg] - 1;
                        Sales += price[arg];
                        state = Vending;
                        goto vend;
                    default: throw new BadEvent("with credit, unexpected " + ev);
                }
                break;
            case Vending:
            vend:
                Console.WriteLine("  vending, change " + credit);
                Refunded += credit;
                credit = 0;
                state = Idle;
                break;
            case OutOfOrder:
                if (ev == 'f') state = Idle;
                else if (ev == 'c') { Console.WriteLine("  out of order, returning " + arg); Refunded += arg; }
                break;
            case Maintenance:
                if (ev == 'l')
                {
                    for (int i = 0; i < stock.Length; i++) stock[i] = stock[i] + arg;
                    Console.WriteLine("  loaded, each slot +" + arg);
                }
                else if (ev == 'x') state = Idle;
                else throw new BadEvent("maintenance mode");
                break;
        }
    }

    void Refund()
    {
        Console.WriteLine("  refund " + credit);
        Refunded += credit;
        credit = 0;
    }

    public string State { get { return StateName(state); } }
    public int Credit { get { return credit; } }
}

static class NumberLexer
{
    // classes: 0 digit, 1 '.', 2 'e', 3 sign, 4 other
    static int Class(char c)
    {
        if (c >= '0' && c <= '9') return 0;
        switch (c)
        {
            case '.': return 1;
            case 'e': case 'E': return 2;
            case '+': case '-': return 3;
            default: return 4;
        }
    }

    static int[][] table;

    static void Build()
    {
        // states: 0 start, 1 sign, 2 int, 3 dot, 4 frac, 5 exp, 6 exp sign, 7 exp digits; -1 reject
        table = new int[8][];
        for (int s = 0; s < 8; s++)
        {
            table[s] = new int[5];
            for (int c = 0; c < 5; c++) table[s][c] = -1;
        }
        table[0][0] = 2; table[0][3] = 1; table[0][1] = 3;
        table[1][0] = 2; table[1][1] = 3;
        table[2][0] = 2; table[2][1] = 3; table[2][2] = 5;
        table[3][0] = 4;
        table[4][0] = 4; table[4][2] = 5;
        table[5][0] = 7; table[5][3] = 6;
        table[6][0] = 7;
        table[7][0] = 7;
    }

    public static string Kind(string s)
    {
        if (table == null) Build();
        int state = 0;
        foreach (char c in s)
        {
            state = table[state][Class(c)];
            if (state < 0) return "invalid";
        }
        switch (state)
        {
            case 2: return "integer";
            case 4: return "decimal";
            case 7: return "scientific";
            default: return "incomplete";
        }
    }
}

static class Program
{
    static int Main()
    {
        Machine m = new Machine();
        string script = "c100 s0 c10 s3 c100 s3 r m l1 x c25 s1 s2 c200 s9 z r k c5 f c80 s1 s1 c1 r q";
        int errors = 0;
        int i = 0;
        while (i < script.Length)
        {
            int end = i;
            while (end < script.Length && script[end] != ' ') end++;
            string tok = script.Substring(i, end - i);
            i = end + 1;
            char ev = tok[0];
            int arg = tok.Length > 1 ? int.Parse(tok.Substring(1)) : 0;
            Console.WriteLine(m.State + " <- " + tok);
            try
            {
                m.Handle(ev, arg);
            }
            catch (BadEvent e)
            {
                errors++;
                Console.WriteLine("  rejected: " + e.Message);
            }
        }
        Console.Write("final state " + m.State);
        Console.WriteLine(", credit " + m.Credit);
        Console.Write("sales " + m.Sales);
        Console.WriteLine(", refunded " + m.Refunded);

        string[] literals = { "42", "-7", "3.14", ".5", "1e10", "2.5E-3", "1e", "+", "12a", "-.e1", "6.02e+23", "." };
        foreach (string lit in literals)
            Console.WriteLine(lit + ": " + NumberLexer.Kind(lit));
        return errors;
    }
}
