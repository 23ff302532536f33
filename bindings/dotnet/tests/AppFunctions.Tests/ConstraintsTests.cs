using System.Text.Json;
using AppFunctions.Tests.Constrained;

namespace AppFunctions.Tests;

/// <summary>DataAnnotations become the core's value constraints (issue 13), enforced by the binder.</summary>
public sealed class ConstraintsTests
{
    [Fact]
    public async Task DataAnnotations_reach_the_schema_and_the_binder()
    {
        var host = TestHost.Create(typeof(ConstrainedFunctions).Namespace!);
        using (host)
        {
            var d = host.Dispatcher;
            using var schema = JsonDocument.Parse(d.Registry["reserve"]!.GetParametersJsonSchema());
            var p = schema.RootElement.GetProperty("properties");
            Assert.Equal(1, p.GetProperty("quantity").GetProperty("minimum").GetInt32());
            Assert.Equal(100, p.GetProperty("quantity").GetProperty("maximum").GetInt32());
            Assert.Equal(2, p.GetProperty("code").GetProperty("minLength").GetInt32());
            Assert.Equal(8, p.GetProperty("code").GetProperty("maxLength").GetInt32());
            Assert.Equal("^[a-z]+$", p.GetProperty("tag").GetProperty("pattern").GetString());
            Assert.Equal(1, p.GetProperty("items").GetProperty("minItems").GetInt32());
            Assert.Equal(3, p.GetProperty("items").GetProperty("maxItems").GetInt32());
            Assert.True(p.GetProperty("labels").GetProperty("uniqueItems").GetBoolean());

            const string ok = """{"quantity":5,"code":"ab","tag":"x","items":["a"],"labels":["p","q"]}""";
            Assert.Equal("5", (await d.Execute(new AppFunctionInvocation("reserve"), ok)).ResultJson);
            async Task Refused(string json, string name)
            {
                var o = await d.Execute(new AppFunctionInvocation("reserve"), json);
                Assert.Equal(AppFunctionErrorCode.InvalidArgument, o.ErrorCode);
                Assert.Contains(name, o.Message);
            }
            await Refused(ok.Replace("\"quantity\":5", "\"quantity\":0", StringComparison.Ordinal), "quantity");
            await Refused(ok.Replace("\"code\":\"ab\"", "\"code\":\"a\"", StringComparison.Ordinal), "code");
            await Refused(ok.Replace("\"tag\":\"x\"", "\"tag\":\"X1\"", StringComparison.Ordinal), "tag");
            await Refused(ok.Replace("[\"a\"]", "[]", StringComparison.Ordinal), "items");
            await Refused(ok.Replace("[\"p\",\"q\"]", "[\"p\",\"p\"]", StringComparison.Ordinal), "labels");
        }
    }
}
