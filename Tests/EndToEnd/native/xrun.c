// Injects capture overruns into a real ALSA device: loaded with LD_PRELOAD, every Nth
// snd_pcm_readi (ONAIR_XRUN_EVERY) returns -EPIPE, as ALSA does when the buffer overflowed,
// without reading. The caller's snd_pcm_recover then really re-prepares the device, and the
// samples it held are lost, as in a real overrun.
#define _GNU_SOURCE
#include <alsa/asoundlib.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>

snd_pcm_sframes_t snd_pcm_readi(snd_pcm_t *pcm, void *buffer, snd_pcm_uframes_t size) {
    static snd_pcm_sframes_t (*real)(snd_pcm_t *, void *, snd_pcm_uframes_t);
    static long every = -1, calls;
    if (!real) real = (snd_pcm_sframes_t (*)(snd_pcm_t *, void *, snd_pcm_uframes_t))dlsym(RTLD_NEXT, "snd_pcm_readi");
    if (every < 0) {
        const char *value = getenv("ONAIR_XRUN_EVERY");
        every = value ? atol(value) : 0;
    }
    if (every > 0 && ++calls % every == 0) return -EPIPE;
    return real(pcm, buffer, size);
}
