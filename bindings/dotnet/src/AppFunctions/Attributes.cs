namespace AppFunctions;

/// <summary>
/// Offers a method to assistants and agents. The AppFunctions source generator turns it into
/// a descriptor (id = the method name in snake_case unless <see cref="Name"/> says otherwise),
/// a JSON reader for its arguments and an invoker, at compile time. Descriptions come from
/// <see cref="System.ComponentModel.DescriptionAttribute"/> or the XML doc comment
/// (<c>&lt;summary&gt;</c>, <c>&lt;param&gt;</c>).
/// </summary>
[AttributeUsage(AttributeTargets.Method, Inherited = false)]
public class AppFunctionAttribute : Attribute
{
    /// <summary>The function id (snake_case); default: the method name in snake_case.</summary>
    public string? Name { get; set; }

    /// <summary>A short title shown by assistants.</summary>
    public string? Title { get; set; }

    /// <summary>The description (else <c>[Description]</c>, else the XML doc summary).</summary>
    public string? Description { get; set; }

    /// <summary>On iOS, bring the app to the foreground before the handler runs (Android runs it in the background).</summary>
    public bool OpensApp { get; set; }

    /// <summary><see cref="ToolKind.Output"/>: the arguments are the result; the method body never runs.</summary>
    public ToolKind Kind { get; set; }

    /// <summary>False registers the function disabled (it answers <c>Disabled</c> until enabled).</summary>
    public bool Enabled { get; set; } = true;

    /// <summary>Listed with a deprecated flag; still callable.</summary>
    public bool Deprecated { get; set; }
}

/// <summary>
/// <see cref="AppFunctionAttribute"/> whose <c>{metadata.X}</c> placeholders and
/// <see cref="ConditionalFunctionAttribute"/> expressions are checked at compile time against
/// the members of <typeparamref name="TMetadata"/>.
/// </summary>
[AttributeUsage(AttributeTargets.Method, Inherited = false)]
public sealed class AppFunctionAttribute<TMetadata> : AppFunctionAttribute
    where TMetadata : IToolMetadata
{
}

/// <summary>Marks a type whose properties are the metadata of agent views (conditions, <c>{metadata.X}</c>).</summary>
#pragma warning disable CA1040 // a marker interface, as in seed 004
public interface IToolMetadata
{
}
#pragma warning restore CA1040

/// <summary>How an agent treats a function (seed 004).</summary>
public enum ToolKind
{
    /// <summary>Executed; the result goes back to the model.</summary>
    Function = 0,

    /// <summary>Calling it ends the agent run: its validated arguments are the structured result.</summary>
    Output = 1,
}

/// <summary>Each call needs the user's approval (the permission handler; an <c>ApprovalRequiredAIFunction</c> for AI tools, with the AppFunctions.Extensions.AI package).</summary>
[AttributeUsage(AttributeTargets.Method, Inherited = false)]
public sealed class RequiresPermissionAttribute : Attribute
{
}

/// <summary>The function is visible in agent views only while the expression over the view's
/// metadata is true (property names with <c>!</c>, <c>&amp;&amp;</c>, <c>||</c>, parentheses).</summary>
[AttributeUsage(AttributeTargets.Method, Inherited = false)]
public sealed class ConditionalFunctionAttribute(string expression) : Attribute
{
    /// <summary>The condition.</summary>
    public string Expression { get; } = expression;
}

/// <summary>
/// Groups the class's functions into a toolkit that collapses into one container tool in agent
/// views until the model calls it. <paramref name="FunctionResult"/> is returned once on
/// expansion; <paramref name="SystemPrompt"/> joins the instructions every turn while expanded.
/// Either may name a static string property or parameterless method of the class
/// (<c>nameof(...)</c>) to be computed when needed.
/// </summary>
[AttributeUsage(AttributeTargets.Class, Inherited = false)]
#pragma warning disable CA1019, IDE1006 // the seed's parameter spelling (FunctionResult:, SystemPrompt:)
public sealed class CollapseAttribute(string description, string? FunctionResult = null, string? SystemPrompt = null) : Attribute
{
    /// <summary>What the container tool says the toolkit does.</summary>
    public string Description { get; } = description;

    /// <summary>Returned once when the container expands (text, or the name of a static member).</summary>
    public string? FunctionResult { get; } = FunctionResult;

    /// <summary>Added to the instructions while expanded (text, or the name of a static member).</summary>
    public string? SystemPrompt { get; } = SystemPrompt;

    /// <summary>The toolkit's name (snake_case, the container tool's name); default: the class name in snake_case.</summary>
    public string? Name { get; set; }
}
#pragma warning restore CA1019, IDE1006

/// <summary>
/// A record that is an entity: as a parameter the caller passes its id and the handler gets the
/// entity (resolved through its <see cref="IAppFunctionEntityProvider{TEntity}"/>; unknown →
/// <c>EntityNotFound</c>); a generated <c>search_{name}</c> function finds entities by text.
/// </summary>
[AttributeUsage(AttributeTargets.Class | AttributeTargets.Struct, Inherited = false)]
public sealed class AppFunctionEntityAttribute(string name) : Attribute
{
    /// <summary>The entity's name (snake_case).</summary>
    public string Name { get; } = name;

    /// <summary>The property holding the id (default <c>Id</c>).</summary>
    public string? IdProperty { get; set; }

    /// <summary>A title.</summary>
    public string? Title { get; set; }

    /// <summary>A description (else <c>[Description]</c> or the XML doc summary).</summary>
    public string? Description { get; set; }
}

/// <summary>Resolves and searches the entities of one type; resolved from the call's DI scope.</summary>
public interface IAppFunctionEntityProvider<TEntity>
{
    /// <summary>The entities with these ids (unknown ids are left out).</summary>
    Task<IReadOnlyList<TEntity>> GetAsync(IReadOnlyList<string> ids, AppFunctionContext context, CancellationToken cancellationToken);

    /// <summary>Entities matching a text query, at most <paramref name="limit"/> when given.</summary>
    Task<IReadOnlyList<TEntity>> SearchAsync(string query, int? limit, AppFunctionContext context, CancellationToken cancellationToken);
}

/// <summary>Approves <see cref="RequiresPermissionAttribute"/> functions (register one in DI); without one such functions answer <c>PermissionDenied</c>.</summary>
public interface IAppFunctionPermissionHandler
{
    /// <summary>True lets the call go on.</summary>
    Task<bool> ApproveAsync(AppFunctionContext context, CancellationToken cancellationToken);
}
