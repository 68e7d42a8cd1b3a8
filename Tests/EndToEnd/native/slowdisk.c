// A slow disk for one folder, loaded with LD_PRELOAD: while the file ONAIR_SLOW_SWITCH exists (the
// test removes it to make the disk fast again), every rename() into ONAIR_SLOW_DIR sleeps
// ONAIR_SLOW_SECONDS first; with ONAIR_SLOW_MS instead, every open, rename and unlink of a path in
// it sleeps that many milliseconds (a disk where each metadata operation takes that long).
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int slowed(const char *path) {
    const char *folder = getenv("ONAIR_SLOW_DIR");
    const char *on = getenv("ONAIR_SLOW_SWITCH");
    return path && folder && on && strncmp(path, folder, strlen(folder)) == 0 && access(on, F_OK) == 0;
}

static void wait_ms(void) {
    const char *ms = getenv("ONAIR_SLOW_MS");
    if (ms) usleep((useconds_t)atoi(ms) * 1000);
}

int rename(const char *from, const char *to) {
    static int (*real)(const char *, const char *);
    if (!real) real = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
    const char *seconds = getenv("ONAIR_SLOW_SECONDS");
    if (slowed(to)) {
        if (seconds) sleep((unsigned)atoi(seconds));
        wait_ms();
    }
    return real(from, to);
}

int unlink(const char *path) {
    static int (*real)(const char *);
    if (!real) real = (int (*)(const char *))dlsym(RTLD_NEXT, "unlink");
    if (slowed(path)) wait_ms();
    return real(path);
}

#define OPEN(name)                                                             \
    int name(const char *path, int flags, ...) {                               \
        static int (*real)(const char *, int, ...);                            \
        if (!real) real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, #name); \
        mode_t mode = 0;                                                       \
        if (flags & (O_CREAT | O_TMPFILE)) {                                   \
            va_list arguments;                                                 \
            va_start(arguments, flags);                                        \
            mode = va_arg(arguments, mode_t);                                  \
            va_end(arguments);                                                 \
        }                                                                      \
        if (slowed(path)) wait_ms();                                           \
        return real(path, flags, mode);                                        \
    }
OPEN(open)
OPEN(open64)
