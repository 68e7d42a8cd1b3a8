// glibc's extensions that its Swift overlay does not export: malloc_trim (handing freed heap
// pages back), and pipe2 and posix_spawn's closefrom (a child process that inherits only its
// pipes), which glibc declares only for _GNU_SOURCE.
#include <malloc.h>
#include <spawn.h>

int pipe2(int descriptors[2], int flags);
int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);
