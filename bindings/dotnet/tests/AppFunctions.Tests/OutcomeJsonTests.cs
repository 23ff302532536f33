using Microsoft.Extensions.DependencyInjection;

namespace AppFunctions.Tests;

/// <summary>Issue 27.9: <c>outcome.ToJson()</c> writes text as the core does.</summary>
public sealed class OutcomeJsonTests
{
    [Fact]
    public async Task ToJson_is_the_cores_outcome_text_non_ASCII_and_markup_unescaped()
    {
        using var sp = new ServiceCollection().BuildServiceProvider();
        using var d = new AppFunctionDispatcher(sp, new AppFunctionsOptions { Include = _ => false });
        d.RegisterFunction("""{"id":"greet","result":"string"}""", (context, _) =>
        {
            context.Say("Grüße <b>&</b> 😀 \"q\" \\ \n\t\u0001 ok");
            return ValueTask.FromResult<string?>("\"Grüße <&> 😀\"");
        });
        var o = await d.Execute(new AppFunctionInvocation("greet"), "{}");
        var core = d.ExecuteJson(new AppFunctionInvocation("greet"), "{}");
        Assert.Equal(core, o.ToJson());
        Assert.Contains("Grüße <b>&</b> 😀", o.ToJson());
        Assert.Contains("\\\"q\\\" \\\\ \\n\\t\\u0001 ok", o.ToJson());

        var failure = await d.Execute(new AppFunctionInvocation("nicht_da_ü"), "{}");
        Assert.Equal(d.ExecuteJson(new AppFunctionInvocation("nicht_da_ü"), "{}"), failure.ToJson());
    }
}
