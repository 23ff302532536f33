using System.Text.Json;
using Android.App.AppSearch;
using AppFunctions.Platforms;

namespace AppFunctions.Maui.Tests;

/// <summary>The walk between a GenericDocument and the core's neutral JSON image (TEAM contract, docs/android.md).</summary>
public sealed class GenericDocumentTests
{
    [Fact]
    public void Every_property_kind_walks_into_its_one_key_of_the_image()
    {
        var note = Documents.Of(("title", new[] { "Milk" }));
        var doc = Documents.Of(
            ("s", new[] { "a", "b" }), ("l", new[] { 1L, -2L }), ("d", new[] { 1.5 }), ("b", new[] { true }),
            ("y", new[] { new byte[] { 1, 2, 3 } }), ("n", new[] { note }));

        var image = JsonDocument.Parse(AppFunctionsGenericDocument.ToJson(doc)).RootElement;

        Assert.Equal("", image.GetProperty("schemaType").GetString());
        var p = image.GetProperty("properties");
        Assert.Equal("""["a","b"]""", p.GetProperty("s").GetProperty("strings").GetRawText());
        Assert.Equal("[1,-2]", p.GetProperty("l").GetProperty("longs").GetRawText());
        Assert.Equal("[1.5]", p.GetProperty("d").GetProperty("doubles").GetRawText());
        Assert.Equal("[true]", p.GetProperty("b").GetProperty("booleans").GetRawText());
        Assert.Equal("""["AQID"]""", p.GetProperty("y").GetProperty("bytes").GetRawText());
        var nested = p.GetProperty("n").GetProperty("documents")[0];
        Assert.Equal("""["Milk"]""", nested.GetProperty("properties").GetProperty("title").GetProperty("strings").GetRawText());
        Assert.All(p.EnumerateObject(), x => Assert.Single(x.Value.EnumerateObject())); // exactly one key each
    }

    [Fact]
    public void An_image_walks_back_into_the_same_document()
    {
        var doc = Documents.Of(("s", new[] { "x" }), ("l", new[] { 7L }), ("n", new[] { Documents.Of(("d", new[] { 0.25 })) }));
        var json = AppFunctionsGenericDocument.ToJson(doc);

        var back = AppFunctionsGenericDocument.FromJson(JsonDocument.Parse(json).RootElement);

        Assert.Equal(json, AppFunctionsGenericDocument.ToJson(back));
        Assert.Equal(new[] { 0.25 }, back.GetPropertyDocumentArray("n")![0].GetPropertyDoubleArray("d"));
    }

    [Fact]
    public void A_null_parameters_document_is_an_empty_image()
    {
        Assert.Equal("""{"namespace":"","id":"","schemaType":"","properties":{}}""", AppFunctionsGenericDocument.ToJson(null));
    }

    [Fact]
    public void An_image_with_an_unknown_kind_is_refused_by_name()
    {
        var e = Assert.Throws<InvalidOperationException>(() => AppFunctionsGenericDocument.FromJson(
            JsonDocument.Parse("""{"properties":{"x":{"floats":[1]}}}""").RootElement));
        Assert.Contains("'x'", e.Message);
        Assert.Contains("floats", e.Message);
    }
}
