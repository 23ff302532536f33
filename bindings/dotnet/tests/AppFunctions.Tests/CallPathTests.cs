using System.Text;
using AppFunctions.Tests.Lazy;
using Microsoft.Extensions.DependencyInjection;

namespace AppFunctions.Tests;

/// <summary>The call path without delegates: contexts made on first use, scopes ended with the
/// outcome; and the outcome reader.</summary>
public sealed class CallPathTests : IDisposable
{
    private readonly TestHost _host = TestHost.Create(typeof(LazyFunctions).Namespace!, s => s
        .AddSingleton<ScopeLog>().AddScoped<ScopedThing>());

    public void Dispose() => _host.Dispose();

    [Fact]
    public async Task A_handler_that_needs_no_context_runs_without_one()
    {
        var o = await _host.Dispatcher.Execute(new AppFunctionInvocation("twice"), """{"n":21}""");
        Assert.Equal("42", o.ResultJson);
        Assert.Empty(_host.Get<ScopeLog>().Disposed); // no scope was opened
    }

    [Theory]
    [InlineData("ok")]
    [InlineData("")]
    [InlineData("Order o-1 placed, 2 items: Normal_priority.")]
    [InlineData("say \"hi\" \\ back")]
    [InlineData("<b>&'+`</b>")]
    [InlineData("caf\u00e9 \u2603 \ud83d\ude00")]
    [InlineData("tab\there\nline")]
    public async Task A_string_result_arrives_as_the_handler_returned_it(string text)
    {
        var longText = text + new string('x', 200); // past the stack-written length
        foreach (var t in new[] { text, longText })
        {
            var o = await _host.Dispatcher.Execute(new AppFunctionInvocation("echo"), System.Text.Json.JsonSerializer.Serialize(new { text = t }));
            Assert.True(o.Status == AppFunctionStatus.Success, o.ToJson());
            Assert.Equal(t, System.Text.Json.JsonDocument.Parse(o.ResultJson!).RootElement.GetString());
            if (t.All(c => char.IsAsciiLetterOrDigit(c) || " -_.,:".Contains(c, StringComparison.Ordinal)))
            {
                Assert.Equal("\"" + t + "\"", o.ResultJson); // nothing to escape
            }
        }
    }

    [Fact]
    public async Task The_scope_made_on_first_use_is_disposed_when_the_outcome_arrives()
    {
        var log = _host.Get<ScopeLog>();
        var first = await _host.Dispatcher.Execute(new AppFunctionInvocation("scope_id"), "{}");
        Assert.Equal([int.Parse(first.ResultJson!, System.Globalization.CultureInfo.InvariantCulture)], log.Disposed);
        var json = _host.Dispatcher.ExecuteJson(new AppFunctionInvocation("scope_id"), "{}");
        Assert.Equal(2, log.Disposed.Count); // ExecuteJson: disposed before it returns
        Assert.Contains("\"result\":" + log.Disposed.Last(), json, StringComparison.Ordinal);
    }

    [Fact]
    public async Task An_entity_lookup_shares_the_calls_scope_and_items()
    {
        var log = _host.Get<ScopeLog>();
        var o = await _host.Dispatcher.Execute(new AppFunctionInvocation("unpack"), """{"box":"b-12"}""");
        Assert.True(o.Status == AppFunctionStatus.Success, o.ToJson());
        var parts = System.Text.Json.JsonDocument.Parse(o.ResultJson!).RootElement.GetString()!.Split(':');
        Assert.Equal(["b-12", "4"], parts[..2]);
        Assert.Equal(parts[2], parts[3]); // one DI scope for the call and its lookup
        Assert.Equal("True", parts[4]);
        Assert.Equal(["Found the box.", "unpack", "False"], parts[5..]); // the lookup's dialog; the call's own handle
        Assert.Equal("Found the box.", o.Dialog);
        Assert.Equal([int.Parse(parts[3], System.Globalization.CultureInfo.InvariantCulture)], log.Disposed);
    }

    [Fact]
    public async Task A_call_the_core_starts_itself_shares_its_scope_with_its_lookup_too()
    {
        // MCP tools/call: no host context; the scope-begin hook installed on first MCP use
        var log = _host.Get<ScopeLog>();
        var before = _host.Dispatcher.ExecuteJson(new AppFunctionInvocation("unpack"), """{"box":"b-1"}""");
        Assert.Contains("\"status\":\"success\"", before, StringComparison.Ordinal);
        _host.Dispatcher.McpHandle("""{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}""");
        Assert.Null(_host.Dispatcher.McpHandle("""{"jsonrpc":"2.0","method":"notifications/initialized"}"""));
        var response = _host.Dispatcher.McpHandle("""{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"unpack","arguments":{"box":"b-12"}}}""")!;
        Assert.True(response.Contains("\"result\"", StringComparison.Ordinal), response);
        var text = System.Text.Json.JsonDocument.Parse(response).RootElement.GetProperty("result").GetProperty("content")[0].GetProperty("text").GetString()!;
        var parts = text.Split(':'); // a string result is the text itself
        Assert.Equal(["b-12", "4"], parts[..2]);
        Assert.Equal(parts[2], parts[3]);
        Assert.Equal(["Found the box.", "unpack", "False"], parts[5..]);
        Assert.Equal(2, log.Disposed.Count);
        // calls the binding starts keep working the same beside the hook
        var after = await _host.Dispatcher.Execute(new AppFunctionInvocation("unpack"), """{"box":"b-3"}""");
        var p3 = System.Text.Json.JsonDocument.Parse(after.ResultJson!).RootElement.GetString()!.Split(':');
        Assert.Equal(p3[2], p3[3]);
        Assert.Equal(3, log.Disposed.Count);
    }

    [Fact]
    public async Task Concurrent_calls_each_get_their_own_scope()
    {
        var tasks = Enumerable.Range(0, 64).Select(_ => Task.Run(() => _host.Dispatcher.Execute(new AppFunctionInvocation("scope_id"), "{}"))).ToArray();
        var ids = (await Task.WhenAll(tasks)).Select(o => o.ResultJson).ToHashSet();
        Assert.Equal(64, ids.Count);
        Assert.Equal(64, _host.Get<ScopeLog>().Disposed.Count);
    }

    private static AppFunctionOutcome Parse(string json) => AppFunctionOutcome.Parse(Encoding.UTF8.GetBytes(json));

    [Fact]
    public unsafe void A_success_is_told_by_its_first_bytes_whatever_the_text_length()
    {
        static bool Success(string text)
        {
            var bytes = Encoding.UTF8.GetBytes(text + "\0");
            fixed (byte* p = bytes)
            {
                return AppFunctionOutcome.IsSuccess(p);
            }
        }
        Assert.True(Success("""{"status":"success","result":1,"dialog":null,"errorCode":null,"message":null}"""));
        Assert.False(Success("""{"status":"error","result":null,"dialog":null,"errorCode":"Denied","message":"no"}"""));
        Assert.False(Success("""{"status":"openApp","result":null,"dialog":null,"errorCode":null,"message":"sign in"}"""));
        // shorter than the prefix, or the prefix cut short: the terminator ends the comparison
        Assert.False(Success(""));
        Assert.False(Success("{\"status\":\"succ"));
        Assert.False(Success("{\"status\":\"success\""));
        Assert.True(Success("{\"status\":\"success\","));
        Assert.False(AppFunctionOutcome.IsSuccess(null));
    }

    [Fact]
    public void The_outcome_reader_takes_the_result_as_the_core_wrote_it()
    {
        var plain = Parse("""{"status":"success","result":{"id":"o-1","n":[1,2]},"dialog":null,"errorCode":null,"message":null}""");
        Assert.Equal(AppFunctionStatus.Success, plain.Status);
        Assert.Equal("""{"id":"o-1","n":[1,2]}""", plain.ResultJson);
        Assert.Null(plain.Dialog);
        Assert.Null(plain.ErrorCode);

        // a result whose own members end like the outcome does
        var nested = Parse("""{"status":"success","result":{"x":1,"dialog":null,"errorCode":null,"message":null},"dialog":null,"errorCode":null,"message":null}""");
        Assert.Equal("""{"x":1,"dialog":null,"errorCode":null,"message":null}""", nested.ResultJson);
        var text = Parse("""{"status":"success","result":"\",\"dialog\":null,\"errorCode\":null,\"message\":null}","dialog":null,"errorCode":null,"message":null}""");
        Assert.Equal(""" "\",\"dialog\":null,\"errorCode\":null,\"message\":null}" """.Trim(), text.ResultJson);

        var none = Parse("""{"status":"success","result":null,"dialog":null,"errorCode":null,"message":null}""");
        Assert.Null(none.ResultJson);
        var box = (System.Text.Json.Serialization.Metadata.JsonTypeInfo<Box>)AppFunctions.Generated.AppFunctions_Tests.AppFunctionsJsonContext.Default.GetTypeInfo(typeof(Box))!;
        Assert.Null(none.GetResult(box));
        Assert.Equal(new Box("b-1", 3), Parse("""{"status":"success","result":{"id":"b-1","size":3},"dialog":null,"errorCode":null,"message":null}""").GetResult(box));

        var said = Parse("""{"status":"success","result":3,"dialog":"Done \"now\".","errorCode":null,"message":null}""");
        Assert.Equal("3", said.ResultJson);
        Assert.Equal("Done \"now\".", said.Dialog);

        var final = Parse("""{"status":"success","result":{"a":1},"dialog":null,"errorCode":null,"message":null,"final":true}""");
        Assert.True(final.IsFinal);
        Assert.Equal("""{"a":1}""", final.ResultJson);

        var failed = Parse("""{"status":"error","result":null,"dialog":null,"errorCode":"InvalidArgument","message":"quantity: not an int32"}""");
        Assert.Equal(AppFunctionStatus.Error, failed.Status);
        Assert.Equal(AppFunctionErrorCode.InvalidArgument, failed.ErrorCode);
        Assert.Equal("quantity: not an int32", failed.Message);
        Assert.Null(failed.ResultJson);

        Assert.Equal(plain.ToJson(), Parse(plain.ToJson()).ToJson());
    }

    [Fact]
    public void The_result_buffer_grows_keeps_what_was_written_and_refuses_to_advance_past_its_end()
    {
        var b = new AppFunctions.Generated.ByteBuffer(4);
        using (var w = new System.Text.Json.Utf8JsonWriter(b))
        {
            w.WriteStringValue(new string('a', 10_000)); // many times the first capacity
        }
        Assert.Equal(10_002, b.WrittenSpan.Length);
        Assert.True(b.WrittenSpan[1..^1].IndexOfAnyExcept((byte)'a') < 0);
        Assert.True(b.GetSpan(100_000).Length >= 100_000);
        Assert.Throws<InvalidOperationException>(() => b.Advance(b.Capacity + 1));
        Assert.Throws<ArgumentOutOfRangeException>(() => b.GetSpan(-1));
        b.ResetWrittenCount();
        Assert.Equal(0, b.WrittenSpan.Length);
        b.GetSpan(1)[0] = (byte)'x';
        b.Advance(1);
        Assert.Equal("x"u8.ToArray(), b.WrittenSpan.ToArray());
    }

    [Fact]
    public void The_argument_scanner_reads_the_compact_arguments_the_core_writes()
    {
        var f = new AppFunctions.Generated.ArgumentScanner("""{"customer":"café ☃","quantity":-12,"big":9007199254740993,"on":true,"off":false,"note":null,"priority":"High"}"""u8);
        Assert.Equal(1, f.Next(out var name));
        Assert.Equal("customer", Encoding.UTF8.GetString(name));
        Assert.False(f.Null());
        Assert.True(f.String(out var customer));
        Assert.Equal("caf\u00e9 \u2603", customer);
        Assert.Equal(1, f.Next(out name));
        Assert.True(f.Int32(out int quantity));
        Assert.Equal(-12, quantity);
        Assert.Equal(1, f.Next(out name));
        Assert.False(f.Int32(out _)); // out of range: the general reader answers
        Assert.True(f.Int64(out long big));
        Assert.Equal(9007199254740993L, big);
        Assert.Equal(1, f.Next(out name));
        Assert.True(f.Boolean(out bool on));
        Assert.True(on);
        Assert.Equal(1, f.Next(out name));
        Assert.True(f.Boolean(out bool off));
        Assert.False(off);
        Assert.Equal(1, f.Next(out name));
        Assert.True(f.Null());
        Assert.Equal(1, f.Next(out name));
        Assert.True(f.RawString(out var priority));
        Assert.Equal("High", Encoding.UTF8.GetString(priority));
        Assert.Equal(0, f.Next(out _));
        Assert.Equal(0, new AppFunctions.Generated.ArgumentScanner("{}"u8).Next(out _));
    }

    [Theory]
    [InlineData("""{"customer":"a\"b"}""")]     // an escape: the general reader unescapes it
    [InlineData("""{"cust\u006fmer":"a"}""")]   // an escaped name
    [InlineData("""{ "customer":"a"}""")]        // whitespace
    [InlineData("""{"customer":2}""")]           // another kind of value
    [InlineData("""{"customer":"a"} """)]        // something after the object
    [InlineData("""{"customer":"a",}""")]
    [InlineData("""[]""")]
    [InlineData("")]
    public void The_argument_scanner_refuses_what_it_does_not_expect(string json)
    {
        var f = new AppFunctions.Generated.ArgumentScanner(Encoding.UTF8.GetBytes(json));
        Assert.False(f.Next(out _) == 1 && f.String(out _) && f.Next(out _) == 0);
    }

    [Theory]
    [InlineData("""{"n":01}""")]
    [InlineData("""{"n":1.5}""")]
    [InlineData("""{"n":1e3}""")]
    [InlineData("""{"n":-}""")]
    [InlineData("""{"n":1234567890123456789}""")] // more digits than the scanner reads
    [InlineData("""{"n":"1"}""")]
    public void The_argument_scanner_leaves_other_numbers_to_the_general_reader(string json)
    {
        var f = new AppFunctions.Generated.ArgumentScanner(Encoding.UTF8.GetBytes(json));
        Assert.Equal(1, f.Next(out _));
        Assert.False(f.Int64(out _));
    }

    [Theory]
    [InlineData("say \"hi\" \\ back")]
    [InlineData("tab\there")]
    [InlineData("caf\u00e9 \ud83d\ude00")]
    public async Task Arguments_with_escapes_or_beyond_ASCII_are_bound_as_sent(string text)
    {
        var o = await _host.Dispatcher.Execute(new AppFunctionInvocation("echo"), System.Text.Json.JsonSerializer.Serialize(new { text }));
        Assert.True(o.Status == AppFunctionStatus.Success, o.ToJson());
        Assert.Equal(text, System.Text.Json.JsonDocument.Parse(o.ResultJson!).RootElement.GetString());
    }
}
