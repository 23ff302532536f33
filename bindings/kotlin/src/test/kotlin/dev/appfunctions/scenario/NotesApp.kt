// The shared scenario's notes app (seed 002, Jetpack AppFunctions), declared with annotations.
package dev.appfunctions.scenario

import dev.appfunctions.AppFunction
import dev.appfunctions.AppFunctionContext
import dev.appfunctions.AppFunctionSerializable
import dev.appfunctions.Description
import java.util.concurrent.ConcurrentSkipListMap
import java.util.concurrent.atomic.AtomicInteger

/** A note. (KDoc: read by the planned KSP processor; at run time the annotations below describe it.) */
@AppFunctionSerializable(description = "A note.", isDescribedByKDoc = true)
data class Note(
    @Description("The note's ID.") val id: Int,
    @Description("The note's title.") val title: String,
    @Description("The note's content.") val content: String,
)

class NoteRepository {
    private val next = AtomicInteger(1)
    val appNotes = ConcurrentSkipListMap<Int, Note>()

    fun createNote(title: String, content: String): Note =
        Note(next.getAndIncrement(), title, content).also { appNotes[it.id] = it }

    fun updateNote(noteId: String, title: String?, content: String): Note? {
        val id = noteId.toIntOrNull() ?: return null
        val old = appNotes[id] ?: return null
        return old.copy(title = title ?: old.title, content = content).also { appNotes[id] = it }
    }
}

class NoteFunctions(private val noteRepository: NoteRepository) {
    /** Lists all available notes. */
    @AppFunction(isDescribedByKDoc = true, description = "Lists all available notes.")
    suspend fun listNotes(appFunctionContext: AppFunctionContext): List<Note>? =
        if (noteRepository.appNotes.isEmpty()) null else noteRepository.appNotes.values.toList()

    /** Adds a new note to the app. */
    @AppFunction(isDescribedByKDoc = true, description = "Adds a new note to the app.")
    suspend fun createNote(
        appFunctionContext: AppFunctionContext,
        @Description("The title of the note.") title: String,
        @Description("The note's content.") content: String,
    ): Note = noteRepository.createNote(title, content)

    /** Edits a single note. */
    @AppFunction(isDescribedByKDoc = true, description = "Edits a single note.")
    suspend fun editNote(
        appFunctionContext: AppFunctionContext,
        @Description("The target note's ID.") noteId: String,
        @Description("The new title if it should be updated.") title: String?,
        @Description("The note's content.") content: String,
    ): Note? = noteRepository.updateNote(noteId, title, content)
}
