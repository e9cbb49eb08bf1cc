// A JSON-like document model: an abstract value class with number,
// string, bool, null, array and object subclasses, a recursive-descent
// parser over get_Chars (escapes through a switch on char), a compact and
// an indented printer built by string concatenation, and a query by path
// with FormatException and a custom exception for bad input.
using System;

class JsonError : Exception
{
    public int At;
    public JsonError(string message, int at) : base(message) { At = at; }
}

abstract class JValue
{
    public abstract void Write(Printer p, int indent);
    public virtual JValue Get(string key) { throw new InvalidOperationException("not an object"); }
    public virtual JValue At(int index) { throw new InvalidOperationException("not an array"); }
    public virtual int Count() { return 0; }
}

class JNumber : JValue
{
    public long Value;
    public JNumber(long v) { Value = v; }
    public override void Write(Printer p, int indent) { p.Add(((object)Value).ToString()); }
}

class JString : JValue
{
    public string Value;
    public JString(string v) { Value = v; }
    public override void Write(Printer p, int indent) { p.Add(Quote(Value)); }

    public static string Quote(string s)
    {
        string r = "\"";
        int start = 0;
        for (int i = 0; i < s.Length; i++)
        {
            string esc;
            switch (s[i])
            {
                case '"': esc = "\\\""; break;
                case '\\': esc = "\\\\"; break;
                case '\n': esc = "\\n"; break;
                case '\t': esc = "\\t"; break;
                case '\r': esc = "\\r"; break;
                default: continue;
            }
            r = r + s.Substring(start, i - start) + esc;
            start = i + 1;
        }
        return r + s.Substring(start) + "\"";
    }
}

class JBool : JValue
{
    public bool Value;
    public JBool(bool v) { Value = v; }
    public override void Write(Printer p, int indent) { p.Add(Value ? "true" : "false"); }
}

class JNull : JValue
{
    public override void Write(Printer p, int indent) { p.Add("null"); }
}

class JArray : JValue
{
    JValue[] items = new JValue[4];
    int count;
    public void Add(JValue v)
    {
        if (count == items.Length)
        {
            JValue[] bigger = new JValue[count * 2];
            for (int i = 0; i < count; i++) bigger[i] = items[i];
            items = bigger;
        }
        items[count++] = v;
    }
    public override int Count() { return count; }
    public override JValue At(int index)
    {
        if (index < 0 || index >= count) throw new IndexOutOfRangeException();
        return items[index];
    }
    public override void Write(Printer p, int indent)
    {
        if (count == 0) { p.Add("[]"); return; }
        p.Add("[");
        for (int i = 0; i < count; i++)
        {
            if (i > 0) p.Add(",");
            p.Line(indent + 1);
            items[i].Write(p, indent + 1);
        }
        p.Line(indent);
        p.Add("]");
    }
}

class JObject : JValue
{
    string[] keys = new string[4];
    JValue[] values = new JValue[4];
    int count;
    public void Set(string key, JValue v)
    {
        for (int i = 0; i < count; i++)
            if (keys[i] == key) { values[i] = v; return; }
        if (count == keys.Length)
        {
            string[] k2 = new string[count * 2];
            JValue[] v2 = new JValue[count * 2];
            for (int i = 0; i < count; i++) { k2[i] = keys[i]; v2[i] = values[i]; }
            keys = k2;
            values = v2;
        }
        keys[count] = key;
        values[count] = v;
        count++;
    }
    public override int Count() { return count; }
    public override JValue Get(string key)
    {
        for (int i = 0; i < count; i++)
            if (string.CompareOrdinal(keys[i], key) == 0) return values[i];
        return null;
    }
    public override void Write(Printer p, int indent)
    {
        if (count == 0) { p.Add("{}"); return; }
        p.Add("{");
        for (int i = 0; i < count; i++)
        {
            if (i > 0) p.Add(",");
            p.Line(indent + 1);
            p.Add(JString.Quote(keys[i]) + (p.Pretty ? ": " : ":"));
            values[i].Write(p, indent + 1);
        }
        p.Line(indent);
        p.Add("}");
    }
}

class Printer
{
    public bool Pretty;
    string current;
    public int Lines;
    public Printer(bool pretty) { Pretty = pretty; }
    public void Add(string s) { current = current + s; }
    public void Line(int indent)
    {
        if (!Pretty) return;
        Console.WriteLine(current);
        Lines++;
        current = new string(' ', indent * 2);
    }
    public void Flush()
    {
        Console.WriteLine(current);
        Lines++;
        current = null;
    }
}

class Parser
{
    string s;
    int p;
    public Parser(string text) { s = text; }

    void Skip()
    {
        while (p < s.Length && (s[p] == ' ' || s[p] == '\n' || s[p] == '\t')) p++;
    }

    char Peek()
    {
        Skip();
        if (p >= s.Length) throw new JsonError("unexpected end", p);
        return s[p];
    }

    void Expect(char c)
    {
        if (Peek() != c) throw new JsonError("expected " + c, p);
        p++;
    }

    public JValue ParseDocument()
    {
        JValue v = ParseValue();
        Skip();
        if (p != s.Length) throw new JsonError("trailing text", p);
        return v;
    }

    JValue ParseValue()
    {
        char c = Peek();
        if (c == '{') return ParseObject();
        if (c == '[') return ParseArray();
        if (c == '"') return new JString(ParseString());
        if (c == '-' || (c >= '0' && c <= '9'))
        {
            int start = p;
            p++;
            while (p < s.Length && s[p] >= '0' && s[p] <= '9') p++;
            return new JNumber(long.Parse(s.Substring(start, p - start)));
        }
        if (Word("true")) return new JBool(true);
        if (Word("false")) return new JBool(false);
        if (Word("null")) return new JNull();
        throw new JsonError("unexpected " + c, p);
    }

    bool Word(string w)
    {
        if (p + w.Length > s.Length || s.Substring(p, w.Length) != w) return false;
        p += w.Length;
        return true;
    }

    string ParseString()
    {
        Expect('"');
        string r = s.Substring(p, 0);
        while (true)
        {
            if (p >= s.Length) throw new JsonError("unterminated string", p);
            char c = s[p++];
            if (c == '"') return r;
            if (c == '\\')
            {
                if (p >= s.Length) throw new JsonError("unterminated string", p);
                char e = s[p++];
                switch (e)
                {
                    case 'n': c = '\n'; break;
                    case 't': c = '\t'; break;
                    case 'r': c = '\r'; break;
                    case '"': case '\\': case '/': c = e; break;
                    default: throw new JsonError("bad escape \\" + e, p - 1);
                }
            }
            r = r + c;
        }
    }

    JValue ParseArray()
    {
        Expect('[');
        JArray a = new JArray();
        if (Peek() == ']') { p++; return a; }
        while (true)
        {
            a.Add(ParseValue());
            if (Peek() == ']') { p++; return a; }
            Expect(',');
        }
    }

    JValue ParseObject()
    {
        Expect('{');
        JObject o = new JObject();
        if (Peek() == '}') { p++; return o; }
        while (true)
        {
            Skip();
            string key = ParseString();
            Expect(':');
            o.Set(key, ParseValue());
            if (Peek() == '}') { p++; return o; }
            Expect(',');
        }
    }
}

static class Program
{
    static JValue Query(JValue v, string path)
    {
        int start = 0;
        while (start < path.Length)
        {
            int dot = path.IndexOf('.', start);
            string part = dot < 0 ? path.Substring(start) : path.Substring(start, dot - start);
            start = dot < 0 ? path.Length : dot + 1;
            if (part.Length > 0 && part[0] >= '0' && part[0] <= '9')
                v = v.At(int.Parse(part));
            else
                v = v.Get(part);
            if (v == null) return null;
        }
        return v;
    }

    static void Show(JValue v, bool pretty)
    {
        Printer p = new Printer(pretty);
        v.Write(p, 0);
        p.Flush();
    }

    static int Main()
    {
        string doc = "{\"name\": \"miniil\", \"version\": 12, \"tags\": [\"jit\", \"clr\", \"il\"],\n" +
            " \"owner\": {\"login\": \"lead\", \"admin\": true, \"quota\": -250},\n" +
            " \"empty\": [], \"none\": null, \"nested\": [[1, 2], [3, [4, {}]]],\n" +
            " \"quote\": \"say \\\"hi\\\"\\n\\tbye\"}";
        JValue v = new Parser(doc).ParseDocument();
        Show(v, false);
        Show(v, true);

        string[] paths = { "name", "owner.quota", "tags.1", "nested.1.1.0", "nested.0", "missing", "tags.7", "name.x", "tags.x1", "tags.1x" };
        int found = 0;
        foreach (string path in paths)
        {
            Console.Write(path + " => ");
            try
            {
                JValue r = Query(v, path);
                if (r == null)
                {
                    Console.WriteLine("(absent)");
                    continue;
                }
                found++;
                Show(r, false);
            }
            catch (IndexOutOfRangeException)
            {
                Console.WriteLine("index out of range");
            }
            catch (InvalidOperationException e)
            {
                Console.WriteLine(e.Message);
            }
            catch (FormatException)
            {
                Console.WriteLine("bad index");
            }
        }

        string[] bad = { "[1, 2", "{\"a\" 1}", "[1 2]", "\"abc", "tru", "[\"\\q\"]", "{} x", "  " };
        foreach (string b in bad)
        {
            try
            {
                new Parser(b).ParseDocument();
                Console.WriteLine("parsed?!");
            }
            catch (JsonError e) when (e.At < b.Length)
            {
                Console.WriteLine(JString.Quote(b) + ": " + e.Message + " at " + e.At);
            }
            catch (JsonError e)
            {
                Console.WriteLine(JString.Quote(b) + ": " + e.Message + " (at the end)");
            }
        }
        return found;
    }
}
