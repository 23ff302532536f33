namespace AppFunctions.Tests.Faults;

/// <summary>An exception whose Message getter throws.</summary>
public sealed class UnreadableException : Exception
{
    public override string Message => throw new InvalidOperationException("the message cannot be read");
}

/// <summary>A result whose generated writer throws (a property getter that fails).</summary>
public sealed class BadResult
{
    public string Name => throw new InvalidOperationException("the Name getter failed");
}

/// <summary>A result whose writer throws an exception whose Message throws.</summary>
public sealed class UnreadableResult
{
    public string Name => throw new UnreadableException();
}

public class FaultyFunctions
{
    /// <summary>Throws an exception whose message cannot be read.</summary>
    [AppFunction]
    public static string ThrowsUnreadable() => throw new UnreadableException();

    /// <summary>The same after an await.</summary>
    [AppFunction]
    public static async Task<string> ThrowsUnreadableAfterAwait()
    {
        await Task.Yield();
        throw new UnreadableException();
    }

    /// <summary>Returns a value its converter cannot write.</summary>
    [AppFunction]
    public static BadResult BadResult() => new();

    /// <summary>The same after an await.</summary>
    [AppFunction]
    public static async Task<BadResult> BadResultAfterAwait()
    {
        await Task.Yield();
        return new BadResult();
    }

    /// <summary>The same through a ValueTask completed later.</summary>
    [AppFunction]
    public static async ValueTask<BadResult> BadResultValueTask()
    {
        await Task.Delay(1);
        return new BadResult();
    }

    /// <summary>A converter failure whose message cannot be read, after an await.</summary>
    [AppFunction]
    public static async Task<UnreadableResult> UnreadableResultAfterAwait()
    {
        await Task.Yield();
        return new UnreadableResult();
    }
}
