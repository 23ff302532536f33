using System;
using System.Collections.Generic;
using System.IO;
using System.Reflection.Metadata;
using System.Reflection.PortableExecutable;
using System.Text;

namespace AppFunctions.Build;

/// <summary>
/// Collects the descriptors the AppFunctions source generator wrote into compiled assemblies
/// (<c>[assembly: AssemblyMetadata("AppFunctions.Bundle", "NNNN\tkind\tname\tjson")]</c>) and
/// writes them as one descriptor bundle, the input of the core's <c>af_bundle_export_copy</c> and
/// of <c>appfunctions export --bundle</c>. The assemblies are read as metadata only: never loaded
/// or run, so an Android or iOS build's assembly works as well as a desktop one.
/// </summary>
internal sealed class BundleReader
{
    internal const string Key = "AppFunctions.Bundle";

    private readonly List<Item> _metadata = new();
    private readonly List<Item> _enums = new();
    private readonly List<Item> _records = new();
    private readonly List<Item> _toolkits = new();
    private readonly List<Item> _functions = new();
    private readonly List<Item> _entities = new();
    private readonly Dictionary<string, Item> _seen = new(StringComparer.Ordinal);

    internal List<string> Errors { get; } = new();

    internal List<string> Warnings { get; } = new();

    internal int FunctionCount => _functions.Count;

    internal int EntityCount => _entities.Count;

    /// <summary>Reads one assembly; false when it is no .NET assembly (a native file in the list).</summary>
    internal bool Read(string path)
    {
        using var stream = File.OpenRead(path);
        using var pe = new PEReader(stream);
        if (!pe.HasMetadata)
        {
            return false;
        }
        var md = pe.GetMetadataReader();
        if (!md.IsAssembly)
        {
            return false;
        }
        var assembly = md.GetString(md.GetAssemblyDefinition().Name);
        var items = new List<(string Order, string Value)>();
        foreach (var handle in md.GetAssemblyDefinition().GetCustomAttributes())
        {
            var attribute = md.GetCustomAttribute(handle);
            if (!IsAssemblyMetadata(md, attribute.Constructor))
            {
                continue;
            }
            var blob = md.GetBlobReader(attribute.Value);
            if (blob.Length < 2 || blob.ReadUInt16() != 1)
            {
                continue;
            }
            if (blob.ReadSerializedString() != Key)
            {
                continue;
            }
            var value = blob.ReadSerializedString() ?? "";
            int tab = value.IndexOf('\t');
            items.Add((tab < 0 ? value : value.Substring(0, tab), tab < 0 ? "" : value.Substring(tab + 1)));
        }
        items.Sort((a, b) => string.CompareOrdinal(a.Order, b.Order));
        foreach (var (order, value) in items)
        {
            Add(assembly, order, value);
        }
        return true;
    }

    private void Add(string assembly, string order, string value)
    {
        var parts = value.Split(new[] { '\t' }, 3);
        if (parts.Length != 3 || parts[1].Length == 0 || parts[2].Length == 0)
        {
            Errors.Add($"{assembly}: the AppFunctions descriptor #{order} is malformed (expected kind, name and JSON): rebuild it with this package's source generator");
            return;
        }
        var item = new Item(parts[0], parts[1], parts[2], assembly);
        List<Item>? list = item.Kind switch
        {
            "metadata" => _metadata,
            "enum" => _enums,
            "record" => _records,
            "toolkit" => _toolkits,
            "function" => _functions,
            "entity" => _entities,
            _ => null,
        };
        if (list is null)
        {
            Warnings.Add($"{assembly}: skipped an AppFunctions descriptor of kind '{item.Kind}' ({item.Name}): this build step is older than the generator that wrote it");
            return;
        }
        // types shared by several assemblies are defined once; function and entity ids are unique
        var key = (item.Kind is "enum" or "record" ? "type" : item.Kind) + ":" + item.Name;
        if (item.Kind == "metadata" && _seen.ContainsKey(key))
        {
            return; // several assemblies' functions read one metadata property
        }
        if (_seen.TryGetValue(key, out var earlier))
        {
            if (item.Kind is "function" or "entity")
            {
                Errors.Add($"the {item.Kind} '{item.Name}' is declared in {earlier.Assembly} and in {assembly}: give one of them another name ([AppFunction(Name = \"...\")])");
            }
            else if (earlier.Json != item.Json && earlier.Assembly != assembly)
            {
                Warnings.Add($"the {item.Kind} '{item.Name}' is described differently in {earlier.Assembly} and in {assembly}; the bundle keeps {earlier.Assembly}'s");
            }
            return;
        }
        _seen[key] = item;
        list.Add(item);
    }

    /// <summary>The bundle: <c>{"metadataSchema": [names], "types": {"enums": [...], "records": [...]},
    /// "toolkits": [...], "functions": [...], "entities": [...]}</c> (metadataSchema and toolkits only
    /// when there are some), each value what the matching registration call of the core takes.</summary>
    internal string ToJson()
    {
        var sb = new StringBuilder("{");
        if (_metadata.Count > 0)
        {
            sb.Append("\"metadataSchema\":");
            Array(sb, _metadata);
            sb.Append(',');
        }
        sb.Append("\"types\":{\"enums\":");
        Array(sb, _enums);
        sb.Append(",\"records\":");
        Array(sb, _records);
        sb.Append('}');
        if (_toolkits.Count > 0)
        {
            sb.Append(",\"toolkits\":");
            Array(sb, _toolkits);
        }
        sb.Append(",\"functions\":");
        Array(sb, _functions);
        sb.Append(",\"entities\":");
        Array(sb, _entities);
        sb.Append("}\n");
        return sb.ToString();
    }

    private static void Array(StringBuilder sb, List<Item> items)
    {
        sb.Append('[');
        for (int i = 0; i < items.Count; i++)
        {
            if (i > 0)
            {
                sb.Append(',');
            }
            sb.Append(items[i].Json);
        }
        sb.Append(']');
    }

    private static bool IsAssemblyMetadata(MetadataReader md, EntityHandle constructor)
    {
        StringHandle name, ns;
        if (constructor.Kind == HandleKind.MemberReference)
        {
            var parent = md.GetMemberReference((MemberReferenceHandle)constructor).Parent;
            if (parent.Kind != HandleKind.TypeReference)
            {
                return false;
            }
            var type = md.GetTypeReference((TypeReferenceHandle)parent);
            (name, ns) = (type.Name, type.Namespace);
        }
        else if (constructor.Kind == HandleKind.MethodDefinition)
        {
            var type = md.GetTypeDefinition(md.GetMethodDefinition((MethodDefinitionHandle)constructor).GetDeclaringType());
            (name, ns) = (type.Name, type.Namespace);
        }
        else
        {
            return false;
        }
        return md.StringComparer.Equals(name, "AssemblyMetadataAttribute") && md.StringComparer.Equals(ns, "System.Reflection");
    }

    private sealed class Item
    {
        internal Item(string kind, string name, string json, string assembly)
        {
            Kind = kind;
            Name = name;
            Json = json;
            Assembly = assembly;
        }

        internal string Kind { get; }

        internal string Name { get; }

        internal string Json { get; }

        internal string Assembly { get; }
    }
}
