// glibc's malloc extensions (malloc_trim), which its Swift overlay does not export.
#include <malloc.h>
