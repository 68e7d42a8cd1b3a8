#ifndef ONAIR_CPIPEWIRE_SHIM_H
#define ONAIR_CPIPEWIRE_SHIM_H

/*
 * A PipeWire video consumer for a portal's screen-cast stream, kept in C because PipeWire's
 * parameters are built with variadic macros. It runs PipeWire's own thread loop; each buffer
 * that arrives is held as the newest picture (the one before goes back to the compositor at
 * once), with the damage of every buffer since the last one taken, so a capture thread takes
 * a picture when it wants one and reads it in place, without a copy.
 */
#include <pipewire/pipewire.h>
#include <spa/param/video/format-utils.h>
#include <spa/buffer/meta.h>
#include <spa/utils/result.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CPW_MAX_DAMAGE 16

typedef struct {
    int x, y, width, height;
} CPW_rect;

/// A picture taken from the stream: read `data` until it is given back with `CPW_release`.
typedef struct {
    void *buffer;          /* the struct pw_buffer held; NULL: nothing new */
    const unsigned char *data;
    int width, height, stride;
    int damageCount;       /* -1: unknown (all of it) */
    CPW_rect damage[CPW_MAX_DAMAGE];
} CPW_frame;

typedef struct {
    struct pw_thread_loop *loop;
    struct pw_context *context;
    struct pw_core *core;
    struct pw_stream *stream;
    struct spa_hook streamListener, coreListener, registryListener;
    struct pw_registry *registry;
    uint32_t node;
    int nodeGone;
    struct spa_video_info_raw format;
    int hasFormat;
    enum pw_stream_state state;
    char error[256];
    struct pw_buffer *newest;
    int damageCount;
    CPW_rect damage[CPW_MAX_DAMAGE];
    unsigned long long frames;
} CPW_capture;

static inline void CPW_addDamage(CPW_capture *c, struct pw_buffer *b) {
    if (c->damageCount < 0) return;
    struct spa_meta_region *regions = spa_buffer_find_meta_data(b->buffer, SPA_META_VideoDamage, sizeof(*regions));
    struct spa_meta *meta = spa_buffer_find_meta(b->buffer, SPA_META_VideoDamage);
    if (!regions || !meta) { c->damageCount = -1; return; }
    struct spa_meta_region *r;
    spa_meta_for_each(r, meta) {
        if (!spa_meta_region_is_valid(r)) break;
        if (c->damageCount == CPW_MAX_DAMAGE) { c->damageCount = -1; return; }
        c->damage[c->damageCount++] = (CPW_rect){r->region.position.x, r->region.position.y,
            (int)r->region.size.width, (int)r->region.size.height};
    }
}

static inline void CPW_onProcess(void *data) {
    CPW_capture *c = data;
    struct pw_buffer *b;
    while ((b = pw_stream_dequeue_buffer(c->stream)) != NULL) {
        struct spa_data *d = &b->buffer->datas[0];
        struct spa_meta_header *header = spa_buffer_find_meta_data(b->buffer, SPA_META_Header, sizeof(*header));
        int corrupted = (d->chunk->flags & SPA_CHUNK_FLAG_CORRUPTED)
            || (header && (header->flags & SPA_META_HEADER_FLAG_CORRUPTED));
        if (d->data == NULL || d->chunk->size == 0 || corrupted) {
            /* A picture the compositor could not copy: skipped, and what it changed is not
               known, so the next one is converted whole. */
            c->damageCount = -1;
            pw_stream_queue_buffer(c->stream, b);
            continue;
        }
        CPW_addDamage(c, b);
        if (c->newest) pw_stream_queue_buffer(c->stream, c->newest);
        c->newest = b;
        c->frames++;
    }
}

static inline void CPW_onParamChanged(void *data, uint32_t id, const struct spa_pod *param) {
    CPW_capture *c = data;
    if (param == NULL || id != SPA_PARAM_Format) return;
    struct spa_video_info_raw raw;
    if (spa_format_video_raw_parse(param, &raw) < 0) return;
    c->format = raw;
    c->hasFormat = 1;
    c->damageCount = -1;
    uint8_t buffer[1024];
    struct spa_pod_builder b = SPA_POD_BUILDER_INIT(buffer, sizeof(buffer));
    const struct spa_pod *params[2];
    /* Four buffers: one may be held here as the newest picture and one be filled by the
       compositor, and it still has one to copy the next change into (with two, a change that
       comes while both are out is lost, and on a still screen nothing repairs it). */
    params[0] = spa_pod_builder_add_object(&b, SPA_TYPE_OBJECT_ParamBuffers, SPA_PARAM_Buffers,
        SPA_PARAM_BUFFERS_buffers, SPA_POD_CHOICE_RANGE_Int(4, 3, 8),
        SPA_PARAM_BUFFERS_dataType, SPA_POD_Int((1 << SPA_DATA_MemFd) | (1 << SPA_DATA_MemPtr)));
    params[1] = spa_pod_builder_add_object(&b, SPA_TYPE_OBJECT_ParamMeta, SPA_PARAM_Meta,
        SPA_PARAM_META_type, SPA_POD_Id(SPA_META_VideoDamage),
        SPA_PARAM_META_size, SPA_POD_CHOICE_RANGE_Int(sizeof(struct spa_meta_region) * CPW_MAX_DAMAGE,
            sizeof(struct spa_meta_region), sizeof(struct spa_meta_region) * CPW_MAX_DAMAGE));
    pw_stream_update_params(c->stream, params, 2);
    pw_thread_loop_signal(c->loop, 0);
}

static inline void CPW_onStateChanged(void *data, enum pw_stream_state old, enum pw_stream_state state,
        const char *error) {
    (void)old;
    CPW_capture *c = data;
    c->state = state;
    if (error) snprintf(c->error, sizeof(c->error), "%s", error);
    pw_thread_loop_signal(c->loop, 0);
}

static inline void CPW_onCoreError(void *data, uint32_t id, int seq, int res, const char *message) {
    (void)seq;
    CPW_capture *c = data;
    if (id != PW_ID_CORE) return;
    snprintf(c->error, sizeof(c->error), "%s (%s)", message ? message : "PipeWire error", spa_strerror(res));
    c->state = PW_STREAM_STATE_ERROR;
    pw_thread_loop_signal(c->loop, 0);
}

/* The shared node going away (the user stopped sharing, the compositor's portal went away)
   leaves the stream connected to nothing: that is the end of the capture. */
static inline void CPW_onGlobalRemove(void *data, uint32_t id) {
    CPW_capture *c = data;
    if (id != c->node) return;
    c->nodeGone = 1;
    pw_thread_loop_signal(c->loop, 0);
}

static const struct pw_registry_events CPW_registryEvents = {
    PW_VERSION_REGISTRY_EVENTS,
    .global_remove = CPW_onGlobalRemove,
};

/* Buffers go when the format changes (a new screen size): the newest picture held with them. */
static inline void CPW_onRemoveBuffer(void *data, struct pw_buffer *buffer) {
    CPW_capture *c = data;
    if (c->newest == buffer) c->newest = NULL;
}

static const struct pw_stream_events CPW_streamEvents = {
    PW_VERSION_STREAM_EVENTS,
    .remove_buffer = CPW_onRemoveBuffer,
    .state_changed = CPW_onStateChanged,
    .param_changed = CPW_onParamChanged,
    .process = CPW_onProcess,
};

static const struct pw_core_events CPW_coreEvents = {
    PW_VERSION_CORE_EVENTS,
    .error = CPW_onCoreError,
};

static inline void CPW_close(CPW_capture *c) {
    if (!c) return;
    if (c->loop) pw_thread_loop_stop(c->loop);
    if (c->stream) pw_stream_destroy(c->stream);
    if (c->registry) pw_proxy_destroy((struct pw_proxy *)c->registry);
    if (c->core) pw_core_disconnect(c->core);
    if (c->context) pw_context_destroy(c->context);
    if (c->loop) pw_thread_loop_destroy(c->loop);
    free(c);
}

/// Connects to the PipeWire remote `fd` (from the portal; taken over) and asks node `node` for
/// raw 32-bit pictures in shared memory. NULL with `error` filled when that cannot start.
static inline CPW_capture *CPW_open(int fd, uint32_t node, char *error, size_t errorSize) {
    pw_init(NULL, NULL);
    CPW_capture *c = calloc(1, sizeof(*c));
    c->state = PW_STREAM_STATE_UNCONNECTED;
    c->damageCount = -1;
    c->loop = pw_thread_loop_new("onair-pipewire", NULL);
    c->context = c->loop ? pw_context_new(pw_thread_loop_get_loop(c->loop), NULL, 0) : NULL;
    if (!c->context || pw_thread_loop_start(c->loop) < 0) {
        snprintf(error, errorSize, "cannot start a PipeWire loop");
        CPW_close(c);
        return NULL;
    }
    pw_thread_loop_lock(c->loop);
    c->core = pw_context_connect_fd(c->context, fd, NULL, 0);
    if (!c->core) {
        snprintf(error, errorSize, "cannot connect to the portal's PipeWire remote");
        pw_thread_loop_unlock(c->loop);
        CPW_close(c);
        return NULL;
    }
    pw_core_add_listener(c->core, &c->coreListener, &CPW_coreEvents, c);
    c->node = node;
    c->registry = pw_core_get_registry(c->core, PW_VERSION_REGISTRY, 0);
    if (c->registry) pw_registry_add_listener(c->registry, &c->registryListener, &CPW_registryEvents, c);
    c->stream = pw_stream_new(c->core, "onair",
        pw_properties_new(PW_KEY_MEDIA_TYPE, "Video", PW_KEY_MEDIA_CATEGORY, "Capture",
            PW_KEY_MEDIA_ROLE, "Screen", NULL));
    pw_stream_add_listener(c->stream, &c->streamListener, &CPW_streamEvents, c);
    uint8_t buffer[1024];
    struct spa_pod_builder b = SPA_POD_BUILDER_INIT(buffer, sizeof(buffer));
    const struct spa_pod *params[1];
    params[0] = spa_pod_builder_add_object(&b, SPA_TYPE_OBJECT_Format, SPA_PARAM_EnumFormat,
        SPA_FORMAT_mediaType, SPA_POD_Id(SPA_MEDIA_TYPE_video),
        SPA_FORMAT_mediaSubtype, SPA_POD_Id(SPA_MEDIA_SUBTYPE_raw),
        SPA_FORMAT_VIDEO_format, SPA_POD_CHOICE_ENUM_Id(3, SPA_VIDEO_FORMAT_BGRx,
            SPA_VIDEO_FORMAT_BGRx, SPA_VIDEO_FORMAT_BGRA),
        SPA_FORMAT_VIDEO_size, SPA_POD_CHOICE_RANGE_Rectangle(
            &SPA_RECTANGLE(1280, 720), &SPA_RECTANGLE(1, 1), &SPA_RECTANGLE(16384, 16384)),
        SPA_FORMAT_VIDEO_framerate, SPA_POD_CHOICE_RANGE_Fraction(
            &SPA_FRACTION(30, 1), &SPA_FRACTION(0, 1), &SPA_FRACTION(1000, 1)));
    int result = pw_stream_connect(c->stream, PW_DIRECTION_INPUT, node,
        PW_STREAM_FLAG_AUTOCONNECT | PW_STREAM_FLAG_MAP_BUFFERS, params, 1);
    pw_thread_loop_unlock(c->loop);
    if (result < 0) {
        snprintf(error, errorSize, "cannot connect to PipeWire node %u: %s", node, spa_strerror(result));
        CPW_close(c);
        return NULL;
    }
    return c;
}

/// Waits up to `timeoutMs` for a format to be agreed. 1: agreed; 0: not yet; -1: the stream
/// failed or ended (`CPW_error` says why).
static inline int CPW_waitFormat(CPW_capture *c, int timeoutMs) {
    pw_thread_loop_lock(c->loop);
    struct timespec deadline;
    pw_thread_loop_get_time(c->loop, &deadline, (int64_t)timeoutMs * SPA_NSEC_PER_MSEC);
    int result = 0;
    while (1) {
        if (c->hasFormat) { result = 1; break; }
        if (c->state == PW_STREAM_STATE_ERROR || c->nodeGone) { result = -1; break; }
        if (pw_thread_loop_timed_wait_full(c->loop, &deadline) != 0) break;
    }
    pw_thread_loop_unlock(c->loop);
    return result;
}

/// The stream's state: 1 streaming or about to; 0 paused by the compositor; -1 failed or ended.
static inline int CPW_status(CPW_capture *c, char *error, size_t errorSize) {
    pw_thread_loop_lock(c->loop);
    int status = c->nodeGone || c->state == PW_STREAM_STATE_ERROR || c->state == PW_STREAM_STATE_UNCONNECTED ? -1
        : c->state == PW_STREAM_STATE_PAUSED ? 0 : 1;
    if (status < 0)
        snprintf(error, errorSize, "%s", c->error[0] ? c->error
            : c->nodeGone ? "the desktop stopped the stream" : "the stream ended");
    pw_thread_loop_unlock(c->loop);
    return status;
}

/// The newest picture since the last one taken (`buffer` NULL when none), with the damage of
/// every picture since then; the caller reads it, then gives it back with `CPW_release`, soon.
/// Until then PipeWire's loop is held (a format change would unmap the picture being read).
static inline CPW_frame CPW_take(CPW_capture *c) {
    CPW_frame frame;
    memset(&frame, 0, sizeof(frame));
    pw_thread_loop_lock(c->loop);
    struct pw_buffer *b = c->newest;
    if (b && c->hasFormat) {
        struct spa_data *d = &b->buffer->datas[0];
        frame.buffer = b;
        frame.width = (int)c->format.size.width;
        frame.height = (int)c->format.size.height;
        frame.stride = d->chunk->stride ? d->chunk->stride : frame.width * 4;
        frame.data = (const unsigned char *)d->data + d->chunk->offset;
        frame.damageCount = c->damageCount;
        if (c->damageCount > 0) memcpy(frame.damage, c->damage, sizeof(CPW_rect) * (size_t)c->damageCount);
        c->newest = NULL;
        c->damageCount = 0;
        return frame; /* the loop stays locked until CPW_release */
    }
    pw_thread_loop_unlock(c->loop);
    return frame;
}

/// Gives a picture taken back to the compositor, and PipeWire's loop its lock.
static inline void CPW_release(CPW_capture *c, void *buffer) {
    if (!buffer) return;
    pw_stream_queue_buffer(c->stream, (struct pw_buffer *)buffer);
    pw_thread_loop_unlock(c->loop);
}

/// The agreed picture size (0 before a format is agreed).
static inline void CPW_size(CPW_capture *c, int *width, int *height) {
    pw_thread_loop_lock(c->loop);
    *width = c->hasFormat ? (int)c->format.size.width : 0;
    *height = c->hasFormat ? (int)c->format.size.height : 0;
    pw_thread_loop_unlock(c->loop);
}

#endif
