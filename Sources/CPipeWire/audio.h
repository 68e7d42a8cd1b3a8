#ifndef ONAIR_CPIPEWIRE_AUDIO_H
#define ONAIR_CPIPEWIRE_AUDIO_H

/*
 * Sound from PipeWire, kept in C because PipeWire's parameters are built with variadic macros.
 *
 * A session is one connection to the user's PipeWire with its own thread loop. It keeps a table
 * of the audio nodes (applications' playback streams, sinks, sources) with the properties onair
 * matches on, and says when the connection broke (PipeWire restarted). A capture is one input
 * stream in that session, asking for 48 kHz 32-bit float stereo (PipeWire's adapter converts
 * whatever the node plays: mono, 5.1, 44.1 kHz), whose samples collect in a ring that a reader
 * drains; the oldest are dropped when nobody drains it for a second.
 */
#include <pipewire/pipewire.h>
#include <spa/param/audio/format-utils.h>
#include <spa/utils/result.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CPA_MAX_NODES 256
#define CPA_TEXT 128
#define CPA_RATE 48000
#define CPA_RING_FRAMES CPA_RATE

enum { CPA_OTHER = 0, CPA_APP_STREAM = 1, CPA_SINK = 2, CPA_SOURCE = 3 };

typedef struct {
    uint32_t id;
    uint32_t serial;
    uint32_t client;
    int kind;
    int pid;        /* application.process.id of the node, or its client's pid; 0 unknown */
    char name[CPA_TEXT];        /* node.name */
    char description[CPA_TEXT]; /* node.description, or node.nick */
    char app[CPA_TEXT];         /* application.name */
    char binary[CPA_TEXT];      /* application.process.binary */
} CPA_node;

typedef struct {
    uint32_t id;
    int pid; /* pipewire.sec.pid */
    char app[CPA_TEXT];
} CPA_client;

typedef struct CPA_session CPA_session;

typedef struct {
    CPA_session *owner;
    struct pw_proxy *proxy;
    struct spa_hook listener;
    CPA_node node;
} CPA_entry;

struct CPA_session {
    struct pw_thread_loop *loop;
    struct pw_context *context;
    struct pw_core *core;
    struct pw_registry *registry;
    struct spa_hook coreListener, registryListener;
    CPA_entry *entries[CPA_MAX_NODES];
    CPA_client clients[CPA_MAX_NODES];
    int clientCount;
    int syncSeq, synced, broken;
    char error[256];
};

typedef struct {
    CPA_session *session;
    struct pw_stream *stream;
    struct spa_hook listener;
    pthread_mutex_t lock;
    float ring[CPA_RING_FRAMES * 2];
    size_t head, count; /* in frames */
    unsigned long long dropped;
    enum pw_stream_state state;
} CPA_capture;

/* Only what the properties name: an update that leaves a key out keeps what was known. */
static inline void CPA_copy(char *to, const struct spa_dict *props, const char *key) {
    const char *value = props ? spa_dict_lookup(props, key) : NULL;
    if (value) snprintf(to, CPA_TEXT, "%s", value);
}

static inline void CPA_fill(CPA_node *node, const struct spa_dict *props) {
    const char *class = spa_dict_lookup(props, PW_KEY_MEDIA_CLASS);
    if (class) {
        node->kind = strcmp(class, "Stream/Output/Audio") == 0 ? CPA_APP_STREAM
            : strcmp(class, "Audio/Sink") == 0 ? CPA_SINK
            : strcmp(class, "Audio/Source") == 0 || strcmp(class, "Audio/Source/Virtual") == 0 ? CPA_SOURCE
            : CPA_OTHER;
    }
    const char *serial = spa_dict_lookup(props, PW_KEY_OBJECT_SERIAL);
    if (serial) node->serial = (uint32_t)strtoul(serial, NULL, 10);
    const char *client = spa_dict_lookup(props, PW_KEY_CLIENT_ID);
    if (client) node->client = (uint32_t)strtoul(client, NULL, 10);
    const char *pid = spa_dict_lookup(props, PW_KEY_APP_PROCESS_ID);
    if (pid) node->pid = atoi(pid);
    CPA_copy(node->name, props, PW_KEY_NODE_NAME);
    CPA_copy(node->description, props, PW_KEY_NODE_DESCRIPTION);
    if (!node->description[0]) CPA_copy(node->description, props, PW_KEY_NODE_NICK);
    CPA_copy(node->app, props, PW_KEY_APP_NAME);
    CPA_copy(node->binary, props, PW_KEY_APP_PROCESS_BINARY);
}

/* A bound node's full properties (the registry's own are a subset: no process id or binary). */
static inline void CPA_onNodeInfo(void *data, const struct pw_node_info *info) {
    CPA_entry *entry = data;
    if ((info->change_mask & PW_NODE_CHANGE_MASK_PROPS) && info->props) CPA_fill(&entry->node, info->props);
    pw_thread_loop_signal(entry->owner->loop, 0);
}

static const struct pw_node_events CPA_nodeEvents = {
    PW_VERSION_NODE_EVENTS,
    .info = CPA_onNodeInfo,
};

static inline void CPA_onGlobal(void *data, uint32_t id, uint32_t permissions, const char *type, uint32_t version,
        const struct spa_dict *props) {
    (void)permissions; (void)version;
    CPA_session *s = data;
    if (!props) return;
    if (strcmp(type, PW_TYPE_INTERFACE_Client) == 0) {
        if (s->clientCount == CPA_MAX_NODES) return;
        CPA_client *client = &s->clients[s->clientCount++];
        client->id = id;
        const char *pid = spa_dict_lookup(props, PW_KEY_SEC_PID);
        client->pid = pid ? atoi(pid) : 0;
        client->app[0] = 0;
        CPA_copy(client->app, props, PW_KEY_APP_NAME);
        return;
    }
    if (strcmp(type, PW_TYPE_INTERFACE_Node) != 0) return;
    CPA_node node;
    memset(&node, 0, sizeof(node));
    node.id = id;
    CPA_fill(&node, props);
    if (node.kind == CPA_OTHER) return;
    for (int i = 0; i < CPA_MAX_NODES; i++) {
        if (s->entries[i]) continue;
        CPA_entry *entry = calloc(1, sizeof(*entry));
        entry->owner = s;
        entry->node = node;
        entry->proxy = pw_registry_bind(s->registry, id, PW_TYPE_INTERFACE_Node, PW_VERSION_NODE, 0);
        if (entry->proxy) pw_proxy_add_object_listener(entry->proxy, &entry->listener, &CPA_nodeEvents, entry);
        s->entries[i] = entry;
        return;
    }
}

static inline void CPA_onGlobalRemove(void *data, uint32_t id) {
    CPA_session *s = data;
    for (int i = 0; i < CPA_MAX_NODES; i++) {
        CPA_entry *entry = s->entries[i];
        if (!entry || entry->node.id != id) continue;
        if (entry->proxy) pw_proxy_destroy(entry->proxy);
        free(entry);
        s->entries[i] = NULL;
    }
    for (int i = 0; i < s->clientCount; i++) {
        if (s->clients[i].id != id) continue;
        s->clients[i] = s->clients[--s->clientCount];
        break;
    }
}

static const struct pw_registry_events CPA_registryEvents = {
    PW_VERSION_REGISTRY_EVENTS,
    .global = CPA_onGlobal,
    .global_remove = CPA_onGlobalRemove,
};

static inline void CPA_onCoreDone(void *data, uint32_t id, int seq) {
    CPA_session *s = data;
    if (id == PW_ID_CORE && seq == s->syncSeq) s->synced = 1;
    pw_thread_loop_signal(s->loop, 0);
}

static inline void CPA_onCoreError(void *data, uint32_t id, int seq, int res, const char *message) {
    (void)seq;
    CPA_session *s = data;
    if (id != PW_ID_CORE) return;
    /* The connection itself failed (the server went away): nothing on it works any more. */
    if (res == -EPIPE || res == -ECONNRESET || s->synced == 0) {
        s->broken = 1;
        snprintf(s->error, sizeof(s->error), "%s", message ? message : spa_strerror(res));
    }
    pw_thread_loop_signal(s->loop, 0);
}

static const struct pw_core_events CPA_coreEvents = {
    PW_VERSION_CORE_EVENTS,
    .done = CPA_onCoreDone,
    .error = CPA_onCoreError,
};

static inline void CPA_disconnect(CPA_session *s) {
    if (!s) return;
    if (s->loop) pw_thread_loop_stop(s->loop);
    for (int i = 0; i < CPA_MAX_NODES; i++) {
        if (!s->entries[i]) continue;
        if (s->entries[i]->proxy) pw_proxy_destroy(s->entries[i]->proxy);
        free(s->entries[i]);
    }
    if (s->registry) pw_proxy_destroy((struct pw_proxy *)s->registry);
    if (s->core) pw_core_disconnect(s->core);
    if (s->context) pw_context_destroy(s->context);
    if (s->loop) pw_thread_loop_destroy(s->loop);
    free(s);
}

/// Connects to the user's PipeWire (PIPEWIRE_REMOTE, or pipewire-0 in XDG_RUNTIME_DIR) and
/// waits up to `timeoutMs` for the first list of nodes. NULL with `error` filled when there is
/// no PipeWire to talk to.
static inline CPA_session *CPA_connect(int timeoutMs, char *error, size_t errorSize) {
    pw_init(NULL, NULL);
    CPA_session *s = calloc(1, sizeof(*s));
    s->loop = pw_thread_loop_new("onair-pipewire-audio", NULL);
    s->context = s->loop ? pw_context_new(pw_thread_loop_get_loop(s->loop), NULL, 0) : NULL;
    if (!s->context || pw_thread_loop_start(s->loop) < 0) {
        snprintf(error, errorSize, "cannot start a PipeWire loop");
        CPA_disconnect(s);
        return NULL;
    }
    pw_thread_loop_lock(s->loop);
    s->core = pw_context_connect(s->context, NULL, 0);
    if (!s->core) {
        snprintf(error, errorSize, "no PipeWire is running for this user (%s)", strerror(errno));
        pw_thread_loop_unlock(s->loop);
        CPA_disconnect(s);
        return NULL;
    }
    pw_core_add_listener(s->core, &s->coreListener, &CPA_coreEvents, s);
    s->registry = pw_core_get_registry(s->core, PW_VERSION_REGISTRY, 0);
    pw_registry_add_listener(s->registry, &s->registryListener, &CPA_registryEvents, s);
    s->syncSeq = pw_core_sync(s->core, PW_ID_CORE, 0);
    struct timespec deadline;
    pw_thread_loop_get_time(s->loop, &deadline, (int64_t)timeoutMs * SPA_NSEC_PER_MSEC);
    while (!s->synced && !s->broken) {
        if (pw_thread_loop_timed_wait_full(s->loop, &deadline) != 0) break;
    }
    /* A second round trip: the bound nodes' info (process ids, binaries) arrives before it. */
    if (s->synced && !s->broken) {
        s->synced = 0;
        s->syncSeq = pw_core_sync(s->core, PW_ID_CORE, s->syncSeq);
        while (!s->synced && !s->broken) {
            if (pw_thread_loop_timed_wait_full(s->loop, &deadline) != 0) break;
        }
    }
    int ok = s->synced && !s->broken;
    if (!ok) snprintf(error, errorSize, "PipeWire did not answer: %s", s->broken ? s->error : "timed out");
    pw_thread_loop_unlock(s->loop);
    if (!ok) {
        CPA_disconnect(s);
        return NULL;
    }
    return s;
}

/// Whether the connection broke (PipeWire stopped or restarted); `error` says why.
static inline int CPA_broken(CPA_session *s, char *error, size_t errorSize) {
    pw_thread_loop_lock(s->loop);
    int broken = s->broken;
    if (broken) snprintf(error, errorSize, "%s", s->error);
    pw_thread_loop_unlock(s->loop);
    return broken;
}

/// Copies up to `max` audio nodes into `out`, each with its client's process id when its own
/// properties name none; returns how many.
static inline int CPA_nodes(CPA_session *s, CPA_node *out, int max) {
    int count = 0;
    pw_thread_loop_lock(s->loop);
    for (int i = 0; i < CPA_MAX_NODES && count < max; i++) {
        if (!s->entries[i]) continue;
        CPA_node node = s->entries[i]->node;
        for (int c = 0; c < s->clientCount && node.pid == 0; c++) {
            if (s->clients[c].id == node.client) node.pid = s->clients[c].pid;
        }
        out[count++] = node;
    }
    pw_thread_loop_unlock(s->loop);
    return count;
}

static inline void CPA_onProcess(void *data) {
    CPA_capture *c = data;
    struct pw_buffer *b;
    while ((b = pw_stream_dequeue_buffer(c->stream)) != NULL) {
        struct spa_data *d = &b->buffer->datas[0];
        if (d->data && d->chunk->size > 0) {
            const float *samples = (const float *)((const char *)d->data + d->chunk->offset);
            size_t frames = d->chunk->size / (2 * sizeof(float));
            pthread_mutex_lock(&c->lock);
            for (size_t i = 0; i < frames; i++) {
                if (c->count == CPA_RING_FRAMES) {
                    c->head = (c->head + 1) % CPA_RING_FRAMES;
                    c->count--;
                    c->dropped++;
                }
                size_t at = (c->head + c->count) % CPA_RING_FRAMES;
                c->ring[2 * at] = samples[2 * i];
                c->ring[2 * at + 1] = samples[2 * i + 1];
                c->count++;
            }
            pthread_mutex_unlock(&c->lock);
        }
        pw_stream_queue_buffer(c->stream, b);
    }
}

static inline void CPA_onStateChanged(void *data, enum pw_stream_state old, enum pw_stream_state state,
        const char *error) {
    (void)old; (void)error;
    CPA_capture *c = data;
    c->state = state;
}

static const struct pw_stream_events CPA_streamEvents = {
    PW_VERSION_STREAM_EVENTS,
    .state_changed = CPA_onStateChanged,
    .process = CPA_onProcess,
};

/// Starts capturing from the node with serial `serial` (an application's stream, a source, or a
/// sink's monitor when `monitor`); serial 0 is the default source, or the default sink's monitor
/// when `monitor`. The stream never moves to another node when its own goes away.
static inline CPA_capture *CPA_capture_open(CPA_session *s, uint32_t serial, int monitor, char *error,
        size_t errorSize) {
    CPA_capture *c = calloc(1, sizeof(*c));
    c->session = s;
    pthread_mutex_init(&c->lock, NULL);
    char target[16];
    snprintf(target, sizeof(target), "%u", serial);
    struct pw_properties *props = pw_properties_new(PW_KEY_MEDIA_TYPE, "Audio", PW_KEY_MEDIA_CATEGORY, "Capture",
        PW_KEY_MEDIA_ROLE, "Screen", PW_KEY_NODE_NAME, "onair", PW_KEY_APP_NAME, "onair", NULL);
    if (serial) {
        pw_properties_set(props, PW_KEY_TARGET_OBJECT, target);
        pw_properties_set(props, PW_KEY_NODE_DONT_RECONNECT, "true");
    }
    if (monitor) pw_properties_set(props, PW_KEY_STREAM_CAPTURE_SINK, "true");
    pw_thread_loop_lock(s->loop);
    c->stream = pw_stream_new(s->core, "onair sound", props);
    if (!c->stream) {
        pw_thread_loop_unlock(s->loop);
        snprintf(error, errorSize, "cannot create a PipeWire stream");
        pthread_mutex_destroy(&c->lock);
        free(c);
        return NULL;
    }
    pw_stream_add_listener(c->stream, &c->listener, &CPA_streamEvents, c);
    uint8_t buffer[1024];
    struct spa_pod_builder b = SPA_POD_BUILDER_INIT(buffer, sizeof(buffer));
    struct spa_audio_info_raw raw = {.format = SPA_AUDIO_FORMAT_F32, .rate = CPA_RATE, .channels = 2};
    raw.position[0] = SPA_AUDIO_CHANNEL_FL;
    raw.position[1] = SPA_AUDIO_CHANNEL_FR;
    const struct spa_pod *params[1];
    params[0] = spa_format_audio_raw_build(&b, SPA_PARAM_EnumFormat, &raw);
    int result = pw_stream_connect(c->stream, PW_DIRECTION_INPUT, PW_ID_ANY,
        PW_STREAM_FLAG_AUTOCONNECT | PW_STREAM_FLAG_MAP_BUFFERS, params, 1);
    pw_thread_loop_unlock(s->loop);
    if (result < 0) {
        snprintf(error, errorSize, "cannot capture from PipeWire: %s", spa_strerror(result));
        pw_thread_loop_lock(s->loop);
        pw_stream_destroy(c->stream);
        pw_thread_loop_unlock(s->loop);
        pthread_mutex_destroy(&c->lock);
        free(c);
        return NULL;
    }
    return c;
}

/// Moves up to `max` frames (stereo float pairs) out of the ring into `out`; returns how many.
static inline int CPA_capture_read(CPA_capture *c, float *out, int max) {
    pthread_mutex_lock(&c->lock);
    int frames = (int)(c->count < (size_t)max ? c->count : (size_t)max);
    for (int i = 0; i < frames; i++) {
        size_t at = (c->head + (size_t)i) % CPA_RING_FRAMES;
        out[2 * i] = c->ring[2 * at];
        out[2 * i + 1] = c->ring[2 * at + 1];
    }
    c->head = (c->head + (size_t)frames) % CPA_RING_FRAMES;
    c->count -= (size_t)frames;
    pthread_mutex_unlock(&c->lock);
    return frames;
}

/// Frames waiting in the ring.
static inline int CPA_capture_available(CPA_capture *c) {
    pthread_mutex_lock(&c->lock);
    int frames = (int)c->count;
    pthread_mutex_unlock(&c->lock);
    return frames;
}

/// Frames dropped because the ring was full.
static inline unsigned long long CPA_capture_dropped(CPA_capture *c) {
    pthread_mutex_lock(&c->lock);
    unsigned long long dropped = c->dropped;
    pthread_mutex_unlock(&c->lock);
    return dropped;
}

/// Stops and frees a capture; its session stays.
static inline void CPA_capture_close(CPA_capture *c) {
    if (!c) return;
    pw_thread_loop_lock(c->session->loop);
    pw_stream_destroy(c->stream);
    pw_thread_loop_unlock(c->session->loop);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

#endif
