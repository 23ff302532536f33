using System.Text.Json;
using AppFunctions.Tests.Orders;
using Microsoft.Extensions.DependencyInjection;

namespace AppFunctions.Tests;

/// <summary><see cref="AppFunctionDispatcher.LookupEntities"/> (<c>af_entities_async</c>) and
/// <see cref="AppFunctionDispatcher.LookupEntitiesJson"/> (<c>af_entities_json</c>): the orders app's
/// entities by id, through its provider and its delegates.</summary>
public sealed class EntitiesByIdTests : IDisposable
{
    private readonly TestHost _host = TestHost.Create(typeof(Order).Namespace!, s => s
        .AddSingleton<OrderStore>().AddSingleton<SignInState>().AddSingleton<Probe>());

    private AppFunctionDispatcher Dispatcher => _host.Dispatcher;

    public void Dispose() => _host.Dispose();

    private static List<string> Ids(string? resultJson) =>
        JsonDocument.Parse(resultJson!).RootElement.EnumerateArray().Select(e => e.GetProperty("id").GetString()!).ToList();

    [Fact]
    public async Task The_entities_come_in_the_order_of_the_ids_an_unknown_id_left_out_each_once()
    {
        var o = await Dispatcher.LookupEntities("order", ["o-3", "o-9", "o-1", "o-3"]);
        Assert.True(o.Status == AppFunctionStatus.Success, o.ToJson());
        Assert.Equal(["o-3", "o-1"], Ids(o.ResultJson));
        Assert.Equal("initech", JsonDocument.Parse(o.ResultJson!).RootElement[0].GetProperty("customer").GetString());
        // the provider got each id once, in a call of its own (no request), and the delegates saw a lookup
        var probe = _host.Get<Probe>();
        Assert.Contains("lookup:o-3,o-9,o-1:True", probe.Seen);
        Assert.Contains(probe.Seen, s => s.StartsWith("invoking:search_order:lookup", StringComparison.Ordinal));
        // the blocking form answers the same; no ids: []
        using var json = JsonDocument.Parse(Dispatcher.LookupEntitiesJson("order", ["o-2", "o-1"]));
        Assert.Equal(["o-2", "o-1"], json.RootElement.GetProperty("result").EnumerateArray().Select(e => e.GetProperty("id").GetString()));
        Assert.Equal("[]", (await Dispatcher.LookupEntities("order", [])).ResultJson);
    }

    [Fact]
    public async Task An_unknown_entity_a_timeout_a_cancel_and_a_disposed_dispatcher_are_outcomes()
    {
        var unknown = await Dispatcher.LookupEntities("ordr", ["o-1"]);
        Assert.Equal(AppFunctionErrorCode.InvalidArgument, unknown.ErrorCode);
        Assert.Equal("no entity named \"ordr\" (did you mean \"order\"?)", unknown.Message);
        var pre = await Dispatcher.LookupEntities("order", ["o-1"], cancellationToken: new CancellationToken(true));
        Assert.Equal(AppFunctionErrorCode.Cancelled, pre.ErrorCode);
        Assert.Equal("looking up order by id was cancelled", pre.Message);
        Dispatcher.Dispose();
        var disposed = await Dispatcher.LookupEntities("order", ["o-1"]);
        Assert.Equal(AppFunctionErrorCode.LimitExceeded, disposed.ErrorCode);
        Assert.Contains("the dispatcher was disposed", disposed.Message);
        Assert.Contains("the dispatcher was disposed", Dispatcher.LookupEntitiesJson("order", ["o-1"]));
    }
}
