using System;
using System.IO;
using System.Text;
using Microsoft.Build.Framework;
using Microsoft.Build.Utilities;

namespace AppFunctions.Build;

/// <summary>
/// MSBuild task: the descriptor bundle of an app, from its compiled assembly and the referenced
/// assemblies whose <c>[AppFunction]</c>s the generator described (see <see cref="BundleReader"/>).
/// The file is rewritten only when its text changes, so later steps stay incremental.
/// </summary>
public sealed class WriteAppFunctionsBundle : Task
{
    /// <summary>The app's assembly first, then its references (files that are no .NET assembly are skipped).</summary>
    [Required]
    public ITaskItem[] Assemblies { get; set; } = Array.Empty<ITaskItem>();

    /// <summary>Where the bundle JSON goes.</summary>
    [Required]
    public string OutputFile { get; set; } = "";

    /// <summary>How many functions the bundle declares (0: nothing for the platforms).</summary>
    [Output]
    public int FunctionCount { get; set; }

    /// <summary>How many entities it declares.</summary>
    [Output]
    public int EntityCount { get; set; }

    /// <inheritdoc/>
    public override bool Execute()
    {
        var reader = new BundleReader();
        foreach (var item in Assemblies)
        {
            var path = item.GetMetadata("FullPath");
            if (string.IsNullOrEmpty(path) || !File.Exists(path))
            {
                continue;
            }
            try
            {
                reader.Read(path);
            }
            catch (BadImageFormatException)
            {
                // a native library or a resource among the references
            }
            catch (IOException e)
            {
                Log.LogError("AppFunctions: cannot read {0}: {1}", path, e.Message);
            }
        }
        foreach (var w in reader.Warnings)
        {
            Log.LogWarning("AppFunctions: {0}", w);
        }
        foreach (var e in reader.Errors)
        {
            Log.LogError("AppFunctions: {0}", e);
        }
        if (reader.Errors.Count > 0)
        {
            return false;
        }
        FunctionCount = reader.FunctionCount;
        EntityCount = reader.EntityCount;
        var json = reader.ToJson();
        var full = Path.GetFullPath(OutputFile);
        Directory.CreateDirectory(Path.GetDirectoryName(full)!);
        if (!File.Exists(full) || File.ReadAllText(full, Encoding.UTF8) != json)
        {
            File.WriteAllText(full, json, new UTF8Encoding(false));
        }
        Log.LogMessage(MessageImportance.Normal, "AppFunctions: {0} function(s), {1} entit(y/ies) -> {2}", FunctionCount, EntityCount, full);
        return !Log.HasLoggedErrors;
    }
}
