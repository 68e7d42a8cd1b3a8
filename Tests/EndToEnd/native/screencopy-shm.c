// Lets xdg-desktop-portal-wlr 0.7 share a screen of a compositor that renders without a GPU.
//
// Since screencopy version 3 the portal waits, for each frame, for the compositor to describe a
// DMA-BUF it could copy into (the frame's `linux_dmabuf` event) and gives up when none comes,
// which a pixman-rendering compositor never sends (the portal's log says "unable to receive a
// valid format from wlr_screencopy"). Loaded with LD_PRELOAD into the portal, this describes
// the shared-memory buffer the compositor did offer as that DMA-BUF as well. With no DMA-BUF
// support advertised anywhere, the portal still agrees on shared-memory buffers with PipeWire.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

struct wl_proxy;
typedef void (*listener_fn)(void);
const char *wl_proxy_get_class(struct wl_proxy *proxy);
uint32_t wl_proxy_get_version(struct wl_proxy *proxy);

// zwlr_screencopy_frame_v1's events, in protocol order.
enum { BUFFER, FLAGS, READY, FAILED, DAMAGE, LINUX_DMABUF, BUFFER_DONE, EVENT_COUNT };

typedef void (*buffer_event)(void *, struct wl_proxy *, uint32_t format, uint32_t width, uint32_t height,
                             uint32_t stride);
typedef void (*dmabuf_event)(void *, struct wl_proxy *, uint32_t fourcc, uint32_t width, uint32_t height);

// The portal keeps one listener table for all its frames: copied once, with `buffer` replaced.
static listener_fn portal_events[EVENT_COUNT];
static listener_fn patched_events[EVENT_COUNT];

// wl_shm's two original codes are not fourccs; every later one is.
static uint32_t fourcc_of(uint32_t shm_format) {
    switch (shm_format) {
    case 0: return 0x34325241;  // ARGB8888: 'AR24'
    case 1: return 0x34325258;  // XRGB8888: 'XR24'
    default: return shm_format;
    }
}

static void on_buffer(void *data, struct wl_proxy *frame, uint32_t format, uint32_t width, uint32_t height,
                      uint32_t stride) {
    ((buffer_event)portal_events[BUFFER])(data, frame, format, width, height, stride);
    if (wl_proxy_get_version(frame) >= 3 && portal_events[LINUX_DMABUF])
        ((dmabuf_event)portal_events[LINUX_DMABUF])(data, frame, fourcc_of(format), width, height);
}

int wl_proxy_add_listener(struct wl_proxy *proxy, listener_fn *events, void *data) {
    static int (*add_listener)(struct wl_proxy *, listener_fn *, void *);
    if (!add_listener)
        add_listener = (int (*)(struct wl_proxy *, listener_fn *, void *))dlsym(RTLD_NEXT, "wl_proxy_add_listener");
    if (events && strcmp(wl_proxy_get_class(proxy), "zwlr_screencopy_frame_v1") == 0) {
        memcpy(portal_events, events, sizeof portal_events);
        memcpy(patched_events, events, sizeof patched_events);
        patched_events[BUFFER] = (listener_fn)on_buffer;
        events = patched_events;
    }
    return add_listener(proxy, events, data);
}
