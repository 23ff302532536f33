using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Text;

namespace AppFunctions.Interop;

/// <summary>UTF-8 in and out of the C ABI without the runtime's marshalling.</summary>
internal static unsafe class Utf8
{
    /// <summary>A NUL-terminated UTF-8 copy of a string: in the caller's stack buffer when it
    /// fits, else in native memory freed by <see cref="Dispose"/>. Never moves while alive.</summary>
    internal ref struct Text
    {
        private byte* _native;
        private readonly byte* _pointer;

        /// <param name="s">the text (null gives a NULL pointer)</param>
        /// <param name="scratch">a stack buffer (stackalloc), used when the text fits</param>
        public Text(string? s, Span<byte> scratch)
        {
            _native = null;
            if (s is null)
            {
                _pointer = null;
                return;
            }
            int max = Encoding.UTF8.GetMaxByteCount(s.Length) + 1;
            if (max <= scratch.Length)
            {
                int n = Encoding.UTF8.GetBytes(s, scratch);
                scratch[n] = 0;
                _pointer = (byte*)Unsafe.AsPointer(ref MemoryMarshal.GetReference(scratch));
            }
            else
            {
                _native = (byte*)NativeMemory.Alloc((nuint)max);
                int n = Encoding.UTF8.GetBytes(s, new Span<byte>(_native, max));
                _native[n] = 0;
                _pointer = _native;
            }
        }

        /// <summary>The NUL-terminated text (NULL for a null string).</summary>
        public readonly byte* Pointer => _pointer;

        public void Dispose()
        {
            if (_native is not null)
            {
                NativeMemory.Free(_native);
                _native = null;
            }
        }
    }

    /// <summary>A NUL-terminated UTF-8 copy in native memory (free with NativeMemory.Free).</summary>
    internal static byte* Alloc(ReadOnlySpan<byte> utf8)
    {
        var p = (byte*)NativeMemory.Alloc((nuint)utf8.Length + 1);
        utf8.CopyTo(new Span<byte>(p, utf8.Length));
        p[utf8.Length] = 0;
        return p;
    }

    /// <summary>Reads lent text (NULL → null).</summary>
    internal static string? Read(byte* p) => p is null ? null : Marshal.PtrToStringUTF8((nint)p);

    /// <summary>Reads lent text as a span (NULL → empty).</summary>
    internal static ReadOnlySpan<byte> Span(byte* p) => p is null ? default : MemoryMarshal.CreateReadOnlySpanFromNullTerminated(p);

    /// <summary>Reads owned text and frees it (NULL → null).</summary>
    internal static string? Take(byte* p)
    {
        if (p is null)
        {
            return null;
        }
        try
        {
            return Marshal.PtrToStringUTF8((nint)p);
        }
        finally
        {
            Native.af_string_free(p);
        }
    }
}
