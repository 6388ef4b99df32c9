#ifndef CTERMINAL_H
#define CTERMINAL_H

// What Swift cannot do for a terminal program: ioctl is variadic, and restoring the terminal
// from a crash must happen in an async-signal-safe C handler.

// Rows and columns of the terminal on `fd`; returns 0 on success.
int cterminal_window_size(int fd, unsigned short *rows, unsigned short *columns);

// Remembers the terminal state of `fd` (taken before raw mode) and the bytes that undo our
// screen modes, and installs handlers for SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT and SIGTRAP
// that restore both and then let the signal take its default course.
int cterminal_arm_crash_restore(int fd, const char *undo, unsigned long undo_length);

// Restores the remembered state now (normal exit paths) and disarms the crash handlers.
void cterminal_restore(void);

// What Swift's Glibc module leaves out (malloc.h): gives the free pages of every malloc arena
// back to the system (malloc_trim(0)); returns 1 when some were.
int cterminal_give_memory_back(void);

#endif
