// A slow disk for one folder: loaded with LD_PRELOAD, every rename() into ONAIR_SLOW_DIR sleeps
// ONAIR_SLOW_SECONDS first, as long as the file ONAIR_SLOW_SWITCH exists (the test removes it to
// make the disk fast again). Renames are how the folder sink puts each file in place.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int rename(const char *from, const char *to) {
    static int (*real)(const char *, const char *);
    if (!real) real = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
    const char *folder = getenv("ONAIR_SLOW_DIR");
    const char *on = getenv("ONAIR_SLOW_SWITCH");
    const char *seconds = getenv("ONAIR_SLOW_SECONDS");
    if (folder && on && seconds && strncmp(to, folder, strlen(folder)) == 0 && access(on, F_OK) == 0) {
        sleep((unsigned)atoi(seconds));
    }
    return real(from, to);
}
