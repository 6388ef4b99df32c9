#define _GNU_SOURCE
#include <malloc.h>
#include "CTerminal.h"
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

// Under AddressSanitizer or ThreadSanitizer malloc is the sanitizer's allocator, which keeps what
// is freed until asked: giving memory back must ask it (glibc's malloc_trim has nothing to trim).
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#include <sanitizer/allocator_interface.h>
#define CTERMINAL_SANITIZER_ALLOCATOR 1
#endif
#endif

static struct termios saved_state;
static int saved_fd = -1;
static char undo_bytes[256];
static size_t undo_count;
static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP};

int cterminal_window_size(int fd, unsigned short *rows, unsigned short *columns) {
    struct winsize size;
    if (ioctl(fd, TIOCGWINSZ, &size) != 0) return -1;
    *rows = size.ws_row;
    *columns = size.ws_col;
    return 0;
}

static void restore_now(void) {
    if (saved_fd < 0) return;
    if (undo_count > 0) {
        ssize_t ignored = write(saved_fd, undo_bytes, undo_count);
        (void)ignored;
    }
    tcsetattr(saved_fd, TCSAFLUSH, &saved_state);
}

static void on_fatal_signal(int signal_number) {
    restore_now();
    saved_fd = -1;
    struct sigaction fallback;
    memset(&fallback, 0, sizeof fallback);
    fallback.sa_handler = SIG_DFL;
    sigaction(signal_number, &fallback, NULL);
    raise(signal_number);
}

int cterminal_arm_crash_restore(int fd, const char *undo, unsigned long undo_length) {
    if (tcgetattr(fd, &saved_state) != 0) return -1;
    undo_count = undo_length < sizeof undo_bytes ? undo_length : sizeof undo_bytes;
    memcpy(undo_bytes, undo, undo_count);
    saved_fd = fd;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_fatal_signal;
    sigemptyset(&action.sa_mask);
    for (size_t index = 0; index < sizeof fatal_signals / sizeof fatal_signals[0]; index++) {
        sigaction(fatal_signals[index], &action, NULL);
    }
    return 0;
}

void cterminal_restore(void) {
    restore_now();
    saved_fd = -1;
    struct sigaction fallback;
    memset(&fallback, 0, sizeof fallback);
    fallback.sa_handler = SIG_DFL;
    for (size_t index = 0; index < sizeof fatal_signals / sizeof fatal_signals[0]; index++) {
        sigaction(fatal_signals[index], &fallback, NULL);
    }
}

int cterminal_give_memory_back(void) {
#ifdef CTERMINAL_SANITIZER_ALLOCATOR
    __sanitizer_purge_allocator();
#endif
    return malloc_trim(0);
}
