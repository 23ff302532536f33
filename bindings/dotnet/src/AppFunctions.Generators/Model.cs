using System;
using System.Collections;
using System.Collections.Generic;
using System.Collections.Immutable;
using System.Linq;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.Text;

namespace AppFunctions.Generators;

/// <summary>An immutable array compared by its elements, so incremental steps cache.</summary>
internal readonly struct EquatableArray<T>(ImmutableArray<T> items) : IEquatable<EquatableArray<T>>, IEnumerable<T>
    where T : IEquatable<T>
{
    private readonly ImmutableArray<T> _items = items;

    public static EquatableArray<T> Empty => new(ImmutableArray<T>.Empty);

    public ImmutableArray<T> Items => _items.IsDefault ? ImmutableArray<T>.Empty : _items;

    public bool Equals(EquatableArray<T> other) => Items.SequenceEqual(other.Items);

    public override bool Equals(object? obj) => obj is EquatableArray<T> o && Equals(o);

    public override int GetHashCode()
    {
        int h = 17;
        foreach (var i in Items)
        {
            h = (h * 31) + (i?.GetHashCode() ?? 0);
        }
        return h;
    }

    public IEnumerator<T> GetEnumerator() => ((IEnumerable<T>)Items).GetEnumerator();

    IEnumerator IEnumerable.GetEnumerator() => GetEnumerator();
}

internal static class EquatableArray
{
    public static EquatableArray<T> ToEquatable<T>(this IEnumerable<T> items) where T : IEquatable<T> => new(items.ToImmutableArray());
}

/// <summary>A diagnostic with a location that survives caching (no symbols, no trees).</summary>
internal sealed record DiagnosticInfo(string Id, string FilePath, TextSpan Span, LinePositionSpan Lines, EquatableArray<string> Args)
{
    public static DiagnosticInfo Create(DiagnosticDescriptor d, Location? location, params string[] args)
    {
        var l = location ?? Location.None;
        return new DiagnosticInfo(d.Id, l.SourceTree?.FilePath ?? "", l.SourceSpan, l.GetLineSpan().Span, args.ToEquatable());
    }

    /// <summary>A diagnostic at a place kept from an earlier step (<see cref="SourcePlace"/>).</summary>
    public static DiagnosticInfo At(DiagnosticDescriptor d, SourcePlace place, params string[] args) =>
        new(d.Id, place.FilePath, place.Span, place.Lines, args.ToEquatable());

    public Diagnostic ToDiagnostic()
    {
        var descriptor = typeof(Diagnostics).GetFields(System.Reflection.BindingFlags.Static | System.Reflection.BindingFlags.NonPublic)
            .Select(f => f.GetValue(null)).OfType<DiagnosticDescriptor>().First(d => d.Id == Id);
        var location = FilePath.Length == 0 ? Location.None : Location.Create(FilePath, Span, Lines);
        return Diagnostic.Create(descriptor, location, Args.Items.Cast<object>().ToArray());
    }
}

/// <summary>Where a symbol is declared, kept without the tree (for diagnostics reported later).</summary>
internal sealed record SourcePlace(string FilePath, TextSpan Span, LinePositionSpan Lines)
{
    public static readonly SourcePlace None = new("", default, default);

    public static SourcePlace Of(Location? location) =>
        location is null || !location.IsInSource ? None : new(location.SourceTree?.FilePath ?? "", location.SourceSpan, location.GetLineSpan().Span);
}

/// <summary>A named type (enum or record) with its descriptor JSON and its JSON code.</summary>
internal sealed record NamedType(string Name, bool IsEnum, string DescriptorJson, string FullName, string Key, string Code);

/// <summary>What one unit contributes (a class's functions, a delegate, an entity, a provider).
/// <see cref="Bundle"/>: its descriptors for build tools, each <c>kind\tname\tjson</c>
/// (kind: metadata, toolkit, function, entity), in registration order.</summary>
internal sealed record UnitModel(
    string DeclaringType,
    string SortKey,
    string Services,
    string Register,
    string Members,
    EquatableArray<NamedType> Types,
    EquatableArray<string> FunctionIds,
    EquatableArray<string> FunctionSymbols,
    EquatableArray<SourcePlace> FunctionPlaces,
    EquatableArray<DiagnosticInfo> Diagnostics,
    string Requests,
    string RequestNamespace,
    EquatableArray<string> Bundle = default);
