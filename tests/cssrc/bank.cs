// A bank simulation: an exception hierarchy with inner exceptions,
// transactions in `using` blocks (try/finally, a null check and callvirt
// Dispose through the interface) that roll back unless committed, catch
// clauses with when-filters, try/catch/finally inside loops, and amounts
// printed with String.Concat of a string and a boxed long.
using System;

class BankException : Exception
{
    public BankException(string message) : base(message) { }
    public BankException(string message, Exception inner) : base(message, inner) { }
}

class InsufficientFundsException : BankException
{
    public long Shortfall;
    public InsufficientFundsException(string account, long shortfall)
        : base("insufficient funds in " + account)
    {
        Shortfall = shortfall;
    }
}

class AccountFrozenException : BankException
{
    public AccountFrozenException(string account) : base("account " + account + " is frozen") { }
}

class TransferFailedException : BankException
{
    public TransferFailedException(string message, Exception inner) : base(message, inner) { }
}

static class Text
{
    public static string Of(long v) { return ((object)v).ToString(); }
}

class Account
{
    public string Id;
    public long Balance;
    public bool Frozen;
    public int Operations;

    public Account(string id, long opening)
    {
        Id = id;
        Balance = opening;
    }

    public virtual long Limit() { return 0; }

    public void Withdraw(long amount)
    {
        if (amount <= 0) throw new ArgumentOutOfRangeException("amount");
        if (Frozen) throw new AccountFrozenException(Id);
        if (Balance - amount < -Limit())
            throw new InsufficientFundsException(Id, amount - Balance - Limit());
        Balance -= amount;
        Operations++;
    }

    public void Deposit(long amount)
    {
        if (amount <= 0) throw new ArgumentOutOfRangeException("amount");
        if (Frozen) throw new AccountFrozenException(Id);
        Balance += amount;
        Operations++;
    }

    public override string ToString()
    {
        return Id + ": " + Text.Of(Balance);
    }
}

class CreditAccount : Account
{
    long limit;
    public CreditAccount(string id, long opening, long limit) : base(id, opening) { this.limit = limit; }
    public override long Limit() { return limit; }
    public override string ToString() { return base.ToString() + " (credit " + Text.Of(limit) + ")"; }
}

class Transaction : IDisposable
{
    Account from, to;
    long amount;
    bool withdrawn, committed;
    public static int Open;

    public Transaction(Account from, Account to, long amount)
    {
        this.from = from;
        this.to = to;
        this.amount = amount;
        Open++;
    }

    public void Run()
    {
        from.Withdraw(amount);
        withdrawn = true;
        to.Deposit(amount);
    }

    public void Commit() { committed = true; }

    public void Dispose()
    {
        Open--;
        if (!committed && withdrawn)
        {
            from.Balance += amount;
            Console.WriteLine("  rolled back " + amount);
        }
    }
}

class Bank
{
    Account[] accounts = new Account[8];
    int count;
    public int Failures;

    public Account Open(Account a)
    {
        accounts[count++] = a;
        return a;
    }

    public Account Find(string id)
    {
        foreach (Account a in accounts)
        {
            if (a == null) break;
            if (a.Id == id) return a;
        }
        throw new BankException("no account " + id);
    }

    public void Transfer(string fromId, string toId, long amount)
    {
        try
        {
            using (Transaction t = new Transaction(Find(fromId), Find(toId), amount))
            {
                t.Run();
                t.Commit();
            }
        }
        catch (BankException e) when (!(e is InsufficientFundsException))
        {
            throw new TransferFailedException("transfer " + fromId + "->" + toId + " failed", e);
        }
    }

    public long Total()
    {
        long sum = 0;
        for (int i = 0; i < count; i++) sum += accounts[i].Balance;
        return sum;
    }

    public void Report()
    {
        for (int i = 0; i < count; i++)
            Console.WriteLine("  " + accounts[i]);
        Console.WriteLine("  total " + Total());
    }
}

static class Program
{
    static string Describe(Exception e)
    {
        string s = e.Message;
        Exception inner = e.InnerException;
        while (inner != null)
        {
            s = s + " <- " + inner.Message;
            inner = inner.InnerException;
        }
        return s;
    }

    static int Main()
    {
        Bank bank = new Bank();
        bank.Open(new Account("alice", 500));
        bank.Open(new Account("bob", 120));
        bank.Open(new CreditAccount("carol", 50, 300));
        Account dave = bank.Open(new Account("dave", 1000));
        dave.Frozen = true;
        long before = bank.Total();
        bank.Report();

        string[] from = { "alice", "bob", "carol", "carol", "dave", "alice", "erin", "bob", "alice" };
        string[] to = { "bob", "carol", "alice", "bob", "alice", "dave", "alice", "alice", "carol" };
        string[] amounts = { "200", "500", "300", "100", "10", "50", "1", "0", "700" };

        int done = 0;
        for (int i = 0; i < from.Length; i++)
        {
            Console.WriteLine("transfer " + from[i] + " -> " + to[i] + ": " + amounts[i]);
            long amount = long.Parse(amounts[i]);
            try
            {
                bank.Transfer(from[i], to[i], amount);
                done++;
            }
            catch (InsufficientFundsException e) when (e.Shortfall < 100)
            {
                Console.WriteLine("  short by only " + Text.Of(e.Shortfall) + ", retrying with less");
                bank.Transfer(from[i], to[i], amount - e.Shortfall);
                done++;
            }
            catch (InsufficientFundsException e)
            {
                Console.WriteLine("  refused: " + e.Message);
                bank.Failures++;
            }
            catch (TransferFailedException e)
            {
                Console.WriteLine("  failed: " + Describe(e));
                bank.Failures++;
            }
            catch (ArgumentOutOfRangeException)
            {
                Console.WriteLine("  bad amount");
                bank.Failures++;
            }
            finally
            {
                Console.WriteLine("  open transactions: " + Transaction.Open);
            }
        }
        bank.Report();
        Console.Write("done " + done);
        Console.WriteLine(", failed " + bank.Failures);
        Console.WriteLine(before == bank.Total() ? "money conserved" : "money lost!");
        return done * 10 + bank.Failures;
    }
}
