// Dates as a value type: a Date struct with a constructor that validates
// (ArgumentOutOfRangeException), methods that move it in place through
// `this` (AddDays), static helpers taking Dates by value, by ref and
// returning them, an array of Date structs sorted in place with swaps
// through ldelema, a month grid printed with StringBuilder and
// int.ToString(), and a TryParse with an out Date.
using System;
using System.Text;

struct Date
{
    public int Year, Month, Day;

    public Date(int year, int month, int day)
    {
        if (month < 1 || month > 12) throw new ArgumentOutOfRangeException("month");
        if (day < 1 || day > DaysIn(year, month)) throw new ArgumentOutOfRangeException("day");
        Year = year;
        Month = month;
        Day = day;
    }

    public static bool IsLeap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

    public static int DaysIn(int y, int m)
    {
        switch (m)
        {
            case 2: return IsLeap(y) ? 29 : 28;
            case 4: case 6: case 9: case 11: return 30;
            default: return 31;
        }
    }

    // DayNumber counts days from 0001-01-01 (day 0).
    public int DayNumber()
    {
        int y = Year - 1;
        int n = y * 365 + y / 4 - y / 100 + y / 400;
        for (int m = 1; m < Month; m++) n += DaysIn(Year, m);
        return n + Day - 1;
    }

    public int DayOfWeek() { return (DayNumber() + 1) % 7; } // 0 = Sunday

    public void AddDays(int n)
    {
        while (n > 0)
        {
            int left = DaysIn(Year, Month) - Day;
            if (n <= left) { Day += n; return; }
            n -= left + 1;
            Day = 1;
            if (++Month > 12) { Month = 1; Year++; }
        }
        while (n < 0)
        {
            if (-n < Day) { Day += n; return; }
            n += Day;
            if (--Month < 1) { Month = 12; Year--; }
            Day = DaysIn(Year, Month);
        }
    }

    public string Iso()
    {
        StringBuilder sb = new StringBuilder(10);
        sb.Append(Year);
        sb.Append(Month < 10 ? "-0" : "-").Append(Month);
        sb.Append(Day < 10 ? "-0" : "-").Append(Day);
        return sb.ToString();
    }
}

static class Dates
{
    static string[] names = { "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };

    public static string DayName(Date d) { return names[d.DayOfWeek()]; }

    public static int Between(Date a, Date b) { return b.DayNumber() - a.DayNumber(); }

    public static Date Later(Date a, Date b) { return a.DayNumber() >= b.DayNumber() ? a : b; }

    public static void NextWeekday(ref Date d)
    {
        do d.AddDays(1); while (d.DayOfWeek() == 0 || d.DayOfWeek() == 6);
    }

    public static bool TryParse(string s, out Date d)
    {
        d = new Date();
        if (s.Length != 10 || s[4] != '-' || s[7] != '-') return false;
        try
        {
            d = new Date(int.Parse(s.Substring(0, 4)), int.Parse(s.Substring(5, 2)), int.Parse(s.Substring(8, 2)));
            return true;
        }
        catch (FormatException)
        {
            return false;
        }
        catch (ArgumentOutOfRangeException)
        {
            return false;
        }
    }

    public static void Sort(Date[] ds)
    {
        for (int i = 1; i < ds.Length; i++)
            for (int j = i; j > 0 && ds[j].DayNumber() < ds[j - 1].DayNumber(); j--)
            {
                Date t = ds[j];
                ds[j] = ds[j - 1];
                ds[j - 1] = t;
            }
    }

    public static void PrintMonth(int year, int month)
    {
        Date first = new Date(year, month, 1);
        StringBuilder sb = new StringBuilder();
        sb.Append("     ").Append(year).Append('-').Append(month < 10 ? "0" : null).Append(month);
        Console.WriteLine(sb.ToString());
        Console.WriteLine(" Su Mo Tu We Th Fr Sa");
        sb.Clear();
        int col = first.DayOfWeek();
        for (int i = 0; i < col; i++) sb.Append("   ");
        int days = Date.DaysIn(year, month);
        for (int d = 1; d <= days; d++)
        {
            sb.Append(d < 10 ? "  " : " ").Append(d);
            if (++col == 7)
            {
                Console.WriteLine(sb.ToString());
                sb.Clear();
                col = 0;
            }
        }
        if (sb.Length > 0) Console.WriteLine(sb.ToString());
    }
}

static class Program
{
    static int Main()
    {
        Date epoch = new Date(1970, 1, 1);
        Date today = new Date(2024, 2, 28);
        Console.WriteLine(epoch.Iso() + " was a " + Dates.DayName(epoch));
        Console.WriteLine(today.Iso() + " is a " + Dates.DayName(today) + ", day " + today.DayNumber().ToString());
        Date copy = today;
        copy.AddDays(2);
        Console.WriteLine("two days later: " + copy.Iso() + " (the original is still " + today.Iso() + ")");
        Console.WriteLine("days since the epoch: " + Dates.Between(epoch, today).ToString());
        Date back = today;
        back.AddDays(-10000);
        Console.WriteLine("10000 days earlier: " + back.Iso() + ", " + Dates.DayName(back));
        Date friday = new Date(2024, 3, 1);
        Dates.NextWeekday(ref friday);
        Console.WriteLine("the weekday after 2024-03-01: " + friday.Iso());
        Console.WriteLine("later of the two: " + Dates.Later(epoch, today).Iso());

        string[] inputs = { "2000-02-29", "1900-02-29", "2023-13-01", "2023-04-31", "20x3-01-01", "2023/01/01", "1999-12-31", "2038-01-19", "1066-10-14" };
        Date[] parsed = new Date[inputs.Length];
        int n = 0;
        foreach (string s in inputs)
        {
            Date d;
            if (Dates.TryParse(s, out d))
            {
                parsed[n++] = d;
                Console.WriteLine(s + " ok, " + Dates.DayName(d));
            }
            else Console.WriteLine(s + " rejected");
        }
        Date[] valid = new Date[n];
        for (int i = 0; i < n; i++) valid[i] = parsed[i];
        Dates.Sort(valid);
        StringBuilder order = new StringBuilder().Append("sorted:");
        foreach (Date d in valid) order.Append(' ').Append(d.Iso());
        Console.WriteLine(order.ToString());

        try
        {
            new Date(2023, 2, 29);
        }
        catch (ArgumentOutOfRangeException)
        {
            Console.WriteLine("2023-02-29 does not exist");
        }
        Dates.PrintMonth(2024, 2);
        Dates.PrintMonth(2023, 10);
        int fridays13 = 0;
        for (int y = 2000; y < 2030; y++)
            for (int m = 1; m <= 12; m++)
                if (new Date(y, m, 13).DayOfWeek() == 5) fridays13++;
        Console.WriteLine("Fridays the 13th, 2000-2029: " + fridays13.ToString());
        return fridays13;
    }
}
