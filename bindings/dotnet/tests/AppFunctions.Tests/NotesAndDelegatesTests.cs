using System.Text.Json;
using AppFunctions.Tests.Notes;
using AppFunctions.Tests.Throwing;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;

namespace AppFunctions.Tests;

/// <summary>Seed 002's notes app: null when empty, nullable (optional) parameters, KDoc → XML docs.</summary>
public sealed class NotesScenarioTests : IDisposable
{
    private readonly TestHost _host = TestHost.Create(typeof(Note).Namespace!, s => s.AddSingleton<NoteRepository>());

    public void Dispose() => _host.Dispose();

    [Fact]
    public async Task Notes_list_create_edit()
    {
        var d = _host.Dispatcher;
        var empty = await d.Execute(new AppFunctionInvocation("list_notes"), "{}");
        Assert.Equal(AppFunctionStatus.Success, empty.Status);
        Assert.Null(empty.ResultJson);
        var created = await d.Execute(new AppFunctionInvocation("create_note"), """{"title":"Groceries","content":"milk"}""");
        Assert.Equal("""{"id":1,"title":"Groceries","content":"milk"}""", created.ResultJson);
        var edited = await d.Execute(new AppFunctionInvocation("edit_note"), """{"noteId":"1","content":"milk, eggs"}""");
        Assert.Equal("""{"id":1,"title":"Groceries","content":"milk, eggs"}""", edited.ResultJson);
        var titled = await d.Execute(new AppFunctionInvocation("edit_note"), """{"noteId":"1","title":null,"content":"eggs"}""");
        Assert.Contains("\"title\":\"Groceries\"", titled.ResultJson);
        var none = await d.Execute(new AppFunctionInvocation("edit_note"), """{"noteId":"9","content":"x"}""");
        Assert.Equal(AppFunctionStatus.Success, none.Status);
        Assert.Null(none.ResultJson);
        var list = await d.Execute(new AppFunctionInvocation("list_notes"), "{}");
        Assert.Equal(1, JsonDocument.Parse(list.ResultJson!).RootElement.GetArrayLength());
    }

    [Fact]
    public void Descriptions_come_from_the_XML_doc_comments()
    {
        var edit = _host.Dispatcher.Registry["edit_note"]!;
        Assert.Equal("Edits a single note.", edit.Description);
        Assert.Equal(["noteId", "title", "content"], edit.Parameters.Select(p => p.Name));
        Assert.Equal("The new title if it should be updated.", edit.Parameters[1].Description);
        Assert.True(edit.Parameters[1].Nullable);
        Assert.True(edit.Parameters[1].Optional);
        using var schema = JsonDocument.Parse(edit.GetParametersJsonSchema());
        Assert.Equal(["noteId", "content"], schema.RootElement.GetProperty("required").EnumerateArray().Select(e => e.GetString()));
        Assert.Contains("The note's ID.", JsonDocument.Parse(_host.Dispatcher.Registry.Json).RootElement.GetProperty("types").GetRawText());
    }
}

/// <summary>Delegates that throw: OnInvoking refuses the call with the message, OnInvoked is logged and ignored.</summary>
public sealed class ThrowingDelegateTests : IDisposable
{
    private readonly TestHost _host = TestHost.Create(typeof(ThrowingDelegate).Namespace!);

    public void Dispose() => _host.Dispose();

    [Fact]
    public async Task A_throwing_OnInvoking_denies_and_a_throwing_OnInvoked_is_logged_and_ignored()
    {
        var guarded = await _host.Dispatcher.Execute(new AppFunctionInvocation("guarded"), "{}");
        Assert.Equal(AppFunctionErrorCode.Denied, guarded.ErrorCode);
        Assert.Equal("the gate broke", guarded.Message);
        var plain = await _host.Dispatcher.Execute(new AppFunctionInvocation("plain"), "{}");
        Assert.Equal(AppFunctionStatus.Success, plain.Status);
        Assert.Equal("\"ran\"", plain.ResultJson);
        // both calls' OnInvoked throw after an await: wait for plain's own line (guarded's may come first)
        static bool PlainLogged((string Category, LogLevel Level, string Message, Exception? Exception) e) =>
            e.Level == LogLevel.Error && e.Message.Contains("OnInvoked of plain threw (ignored): telemetry is down", StringComparison.Ordinal);
        for (int i = 0; i < 1000 && !_host.Logs.Has(PlainLogged); i++)
        {
            await Task.Delay(10);
        }
        Assert.True(_host.Logs.Has(PlainLogged));
        Assert.True(_host.Logs.Has(e => e.Level == LogLevel.Error && e.Message.Contains("OnInvoking", StringComparison.Ordinal)));
    }
}
