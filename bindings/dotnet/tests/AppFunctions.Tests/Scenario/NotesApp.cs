namespace AppFunctions.Tests.Notes;

// Seed 002's notes app: KDoc became XML doc comments.

/// <summary>A note.</summary>
/// <param name="Id">The note's ID.</param>
/// <param name="Title">The note's title.</param>
/// <param name="Content">The note's content.</param>
public sealed record Note(int Id, string Title, string Content);

public sealed class NoteRepository
{
    private readonly Lock _lock = new();
    private readonly List<Note> _notes = [];
    private int _next = 1;

    public IReadOnlyList<Note> All
    {
        get
        {
            lock (_lock)
            {
                return [.. _notes];
            }
        }
    }

    public Note Create(string title, string content)
    {
        lock (_lock)
        {
            var n = new Note(_next++, title, content);
            _notes.Add(n);
            return n;
        }
    }

    public Note? Update(string id, string? title, string content)
    {
        lock (_lock)
        {
            int i = _notes.FindIndex(n => n.Id.ToString(System.Globalization.CultureInfo.InvariantCulture) == id);
            if (i < 0)
            {
                return null;
            }
            _notes[i] = _notes[i] with { Title = title ?? _notes[i].Title, Content = content };
            return _notes[i];
        }
    }
}

public class NoteFunctions(NoteRepository noteRepository)
{
    /// <summary>Lists all available notes.</summary>
    /// <param name="appFunctionContext">The context in which the AppFunction is executed.</param>
    [AppFunction]
    public Task<List<Note>?> ListNotes(AppFunctionContext appFunctionContext) =>
        Task.FromResult(noteRepository.All.Count == 0 ? null : noteRepository.All.ToList());

    /// <summary>Adds a new note to the app.</summary>
    /// <param name="appFunctionContext">The context in which the AppFunction is executed.</param>
    /// <param name="title">The title of the note.</param>
    /// <param name="content">The note's content.</param>
    [AppFunction]
    public Task<Note> CreateNote(AppFunctionContext appFunctionContext, string title, string content) =>
        Task.FromResult(noteRepository.Create(title, content));

    /// <summary>Edits a single note.</summary>
    /// <param name="appFunctionContext">The context in which the AppFunction is executed.</param>
    /// <param name="noteId">The target note's ID.</param>
    /// <param name="title">The new title if it should be updated.</param>
    /// <param name="content">The new content if it should be updated.</param>
    [AppFunction]
    public Task<Note?> EditNote(AppFunctionContext appFunctionContext, string noteId, string? title, string content) =>
        Task.FromResult(noteRepository.Update(noteId, title, content));
}
