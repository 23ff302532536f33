using AppFunctions.Generated;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;

namespace AppFunctions.Tests;

/// <summary>What issue 30's ReadyToRun cold start changed in the binding keeps its behaviour: the
/// encoder's plain loop and its vectorized rest, the generated writers' literal names, the metadata
/// names' ordinal list, the logger made at the first message.</summary>
public sealed class ColdStartPathTests
{
    // either side of the encoder's plainly scanned first 64 characters
    public static TheoryData<int> Positions => new() { 0, 1, 63, 64, 65, 100, 300 };

    [Theory]
    [MemberData(nameof(Positions))]
    public unsafe void The_encoder_finds_the_first_character_to_escape_wherever_it_is(int at)
    {
        var encoder = CoreJsonEncoder.Instance;
        foreach (char special in new[] { '"', '\\', '\n', '\u0001', '\u001f' })
        {
            var text = new string('a', at) + special + new string('b', 20) + '"';
            fixed (char* p = text)
            {
                Assert.Equal(at, encoder.FindFirstCharacterToEncode(p, text.Length));
            }
            Assert.Equal(at, encoder.FindFirstCharacterToEncodeUtf8(System.Text.Encoding.UTF8.GetBytes(text)));
        }
        // beyond ASCII: text as it is, but the UTF-8 search stops at its first byte
        var accented = new string('a', at) + "é" + new string('b', 20);
        fixed (char* p = accented)
        {
            Assert.Equal(-1, encoder.FindFirstCharacterToEncode(p, accented.Length));
        }
        Assert.Equal(-1, encoder.FindFirstCharacterToEncodeUtf8(System.Text.Encoding.UTF8.GetBytes(accented)));
        var broken = System.Text.Encoding.UTF8.GetBytes(new string('a', at) + "x");
        broken[at] = 0xC3; // a lead byte without its continuation: the base class reports where
        Assert.Equal(at, encoder.FindFirstCharacterToEncodeUtf8(broken));
    }

    [Theory]
    [InlineData(0)]
    [InlineData(64)]
    [InlineData(65)]
    [InlineData(300)]
    public unsafe void Plain_text_of_any_length_needs_no_escape(int length)
    {
        var text = new string('z', length);
        fixed (char* p = text)
        {
            Assert.Equal(-1, CoreJsonEncoder.Instance.FindFirstCharacterToEncode(p, text.Length));
        }
        Assert.Equal(-1, CoreJsonEncoder.Instance.FindFirstCharacterToEncodeUtf8(System.Text.Encoding.UTF8.GetBytes(text)));
    }

    [Fact]
    public async Task A_long_result_with_escapes_past_the_plain_scan_arrives_as_returned()
    {
        using var sp = new ServiceCollection().BuildServiceProvider();
        using var d = new AppFunctionDispatcher(sp, new AppFunctionsOptions { Include = _ => false });
        var text = new string('a', 90) + "\"quoted\" \\ café \n\t\u0001 😀" + new string('b', 90);
        d.RegisterFunction("""{"id":"long_text","result":"string"}""",
            (_, _) => ValueTask.FromResult<string?>(System.Text.Json.JsonSerializer.Serialize(text)));
        var o = await d.Execute(new AppFunctionInvocation("long_text"), "{}");
        Assert.True(o.Status == AppFunctionStatus.Success, o.ToJson());
        Assert.Equal(text, System.Text.Json.JsonDocument.Parse(o.ResultJson!).RootElement.GetString());
        Assert.Equal(d.ExecuteJson(new AppFunctionInvocation("long_text"), "{}"), o.ToJson());
    }

    [Fact]
    public async Task A_record_and_its_enum_are_written_alike_in_an_outcome_and_through_the_json_context()
    {
        // the generated writers name properties and members with UTF-8 literals (no JsonEncodedText):
        // the outcome's result, and System.Text.Json through the generated context with its own
        // writer and encoder, carry the same names and values
        using var host = TestHost.Create(typeof(AppFunctions.Tests.Orders.Order).Namespace!, s => s
            .AddSingleton<AppFunctions.Tests.Orders.OrderStore>()
            .AddSingleton<AppFunctions.Tests.Orders.Probe>()
            .AddSingleton<AppFunctions.Tests.Orders.SignInState>(new AppFunctions.Tests.Orders.SignInState { IsSignedIn = true }));
        var o = await host.Dispatcher.Execute(new AppFunctionInvocation("create_order"), """{"customer":"acme \"q\"","quantity":3,"priority":"High"}""");
        Assert.True(o.Status == AppFunctionStatus.Success, o.ToJson());
        var result = System.Text.Json.JsonDocument.Parse(o.ResultJson!).RootElement;
        Assert.Equal(["id", "customer", "quantity", "priority", "status"], result.EnumerateObject().Select(p => p.Name));
        Assert.Equal("acme \"q\"", result.GetProperty("customer").GetString());
        Assert.Equal("High", result.GetProperty("priority").GetString());

        var info = (System.Text.Json.Serialization.Metadata.JsonTypeInfo<AppFunctions.Tests.Orders.Order>)
            AppFunctions.Generated.AppFunctions_Tests.AppFunctionsJsonContext.Default.GetTypeInfo(typeof(AppFunctions.Tests.Orders.Order))!;
        var order = new AppFunctions.Tests.Orders.Order(result.GetProperty("id").GetString()!, "acme \"q\"", 3, AppFunctions.Tests.Orders.Priority.High, "open");
        var viaContext = System.Text.Json.JsonSerializer.Serialize(order, info); // its default encoder escapes " as \u0022
        Assert.True(System.Text.Json.Nodes.JsonNode.DeepEquals(System.Text.Json.Nodes.JsonNode.Parse(o.ResultJson!), System.Text.Json.Nodes.JsonNode.Parse(viaContext)), viaContext);
        Assert.Equal(["id", "customer", "quantity", "priority", "status"], System.Text.Json.JsonDocument.Parse(viaContext).RootElement.EnumerateObject().Select(p => p.Name));
        Assert.Equal(order, System.Text.Json.JsonSerializer.Deserialize(o.ResultJson!, info));
    }

    [Fact]
    public void Metadata_names_are_kept_in_ordinal_order_once_each()
    {
        var names = new List<string>();
        foreach (var n in new[] { "b", "B", "a", "ab", "a", "é", "Z", "", "b" })
        {
            OrdinalNames.Add(names, n);
        }
        var expected = new[] { "b", "B", "a", "ab", "é", "Z", "" }.Order(StringComparer.Ordinal).ToList();
        Assert.Equal(expected, names);
        Assert.False(OrdinalNames.Add(names, "ab"));
        foreach (var (x, y) in new[] { ("a", "b"), ("b", "a"), ("a", "ab"), ("ab", "a"), ("Z", "a"), ("é", "z"), ("", ""), ("x", "x") })
        {
            Assert.Equal(Math.Sign(string.CompareOrdinal(x, y)), Math.Sign(OrdinalNames.Compare(x, y)));
        }
    }

    [Fact]
    public void A_negative_platform_wait_is_refused_naming_the_value()
    {
        var e = Assert.Throws<ArgumentOutOfRangeException>(() => AppFunctionsPlatform.WaitTimeout = TimeSpan.FromTicks(-1));
        Assert.Equal("value", e.ParamName);
        Assert.Contains("cannot be negative", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void The_logger_is_the_containers_made_at_the_first_message()
    {
        var logs = new LogSink();
        using var sp = new ServiceCollection().AddLogging(b => b.AddProvider(logs)).BuildServiceProvider();
        var core = new DispatcherCore(sp.GetRequiredService<IServiceScopeFactory>(), sp);
        core.LogError(new InvalidOperationException("boom"), "a test");
        var entry = Assert.Single(logs.Entries);
        Assert.Equal("AppFunctions", entry.Category);
        Assert.Equal(LogLevel.Error, entry.Level);
        Assert.Contains("a test", entry.Message, StringComparison.Ordinal);
        Assert.Same(core.Logger, core.Logger); // made once
    }

    [Fact]
    public void Without_a_logger_factory_or_after_the_container_is_disposed_messages_are_dropped()
    {
        using (var bare = new ServiceCollection().BuildServiceProvider())
        {
            var core = new DispatcherCore(bare.GetRequiredService<IServiceScopeFactory>(), bare);
            Assert.Same(NullLogger.Instance, core.Logger);
        }
        var logs = new LogSink();
        var sp = new ServiceCollection().AddLogging(b => b.AddProvider(logs)).BuildServiceProvider();
        var late = new DispatcherCore(sp.GetRequiredService<IServiceScopeFactory>(), sp);
        sp.Dispose();
        late.LogError(new InvalidOperationException("boom"), "after the container"); // never throws
        late.CoreLog(2, "a core warning after the container");
        Assert.Empty(logs.Entries);
        Assert.Same(NullLogger.Instance, late.Logger);
    }
}
