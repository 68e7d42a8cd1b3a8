#ifndef ONAIR_CALSA_SHIM_H
#define ONAIR_CALSA_SHIM_H

#include <alsa/asoundlib.h>

/// `-EPIPE`, the overrun code `snd_pcm_readi` returns: Swift cannot negate a macro from errno.h.
static const int CALSA_overrun = -EPIPE;

/// alsa-lib prints its own diagnostics to stderr through a variadic handler (which Swift cannot
/// write); every failure reaches the user as one of our errors instead.
static inline void CALSA_ignoreError(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}
static inline void CALSA_silence(void) { snd_lib_error_set_handler(CALSA_ignoreError); }

#endif
