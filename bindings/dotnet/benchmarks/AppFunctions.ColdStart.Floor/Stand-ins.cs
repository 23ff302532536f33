// The attributes and interfaces App.cs uses, as plain types: the floor compiles the same app
// without appfunctions (no library, no generator, no registration).
#pragma warning disable CA1019, CA1813, IDE0060

namespace AppFunctions;

public enum ToolKind
{
    Function,
    Output,
}

public interface IToolMetadata;

public class AppFunctionAttribute : Attribute
{
    public string? Name { get; set; }

    public string? Title { get; set; }

    public ToolKind Kind { get; set; }
}

public sealed class AppFunctionAttribute<TMetadata> : AppFunctionAttribute
    where TMetadata : IToolMetadata;

public sealed class AppFunctionEntityAttribute(string name) : Attribute
{
    public string Name { get; } = name;
}

public sealed class ConditionalFunctionAttribute(string expression) : Attribute
{
    public string Expression { get; } = expression;
}

public sealed class CollapseAttribute(string description, string? FunctionResult = null, string? SystemPrompt = null) : Attribute
{
    public string Description { get; } = description;

    public string? Result { get; } = FunctionResult;

    public string? Prompt { get; } = SystemPrompt;

    public string? Name { get; set; }
}

public sealed class AppFunctionContext;

public interface IAppFunctionEntityProvider<TEntity>
{
    Task<IReadOnlyList<TEntity>> GetAsync(IReadOnlyList<string> ids, AppFunctionContext context, CancellationToken cancellationToken);

    Task<IReadOnlyList<TEntity>> SearchAsync(string query, int? limit, AppFunctionContext context, CancellationToken cancellationToken);
}
