vcl 4.1;

# A Varnish edge cache in front of `onair serve` (the origin). Run it with, for example:
#   varnishd -a :80 -f /etc/varnish/onair-edge.vcl -s malloc,1g
# and set the origin's address below.
#
# What it relies on from the origin: segments, parts and init segments are immutable for a year;
# playlists carry max-age=1 (never no-cache, which Varnish would turn into hit-for-miss objects,
# so that requests stop collapsing); a blocking reload (_HLS_msn, _HLS_part) is cacheable under its
# full URL for a second (s-maxage=1, which Varnish prefers to max-age=0, the browsers' share).
# Varnish's waiting list then makes every viewer asking for the same object at once cost the
# origin one request.

import directors;

# Whether an origin answers: a killed one is left alone within two seconds.
probe answering {
    .url = "/api/channels";
    .interval = 1s;
    .timeout = 1s;
    .window = 2;
    .threshold = 1;
    .initial = 1;
}

backend origin {
    .host = "127.0.0.1";
    .port = "8080";
    .probe = answering;
    # Longer than the origin holds a blocking reload (three target durations).
    .first_byte_timeout = 30s;
    .between_bytes_timeout = 30s;
}

# Its twin (docs/origin.md#twin-origins): the same publisher pushes to both and both serve the same
# names, so what this edge has cached stays valid when it turns to the twin. With one origin,
# delete this backend and its two add_backend lines.
backend twin {
    .host = "127.0.0.1";
    .port = "8081";
    .probe = answering;
    .first_byte_timeout = 30s;
    .between_bytes_timeout = 30s;
}

sub vcl_init {
    # The origin while it answers, else its twin; a request that failed on one is tried on the other.
    new first = directors.fallback();
    first.add_backend(origin);
    first.add_backend(twin);
    new second = directors.fallback();
    second.add_backend(twin);
    second.add_backend(origin);
}

sub vcl_backend_fetch {
    if (bereq.retries == 0) {
        set bereq.backend = first.backend();
    } else {
        set bereq.backend = second.backend();
    }
}

sub vcl_backend_error {
    # Refused, or reset while it held a blocking reload: once more, on the other.
    if (bereq.retries == 0) {
        return (retry);
    }
}

sub vcl_recv {
    # Publishers push to the origin itself, never through an edge.
    if (req.url ~ "^/ingest/") {
        return (synth(403, "Push to the origin, not to an edge"));
    }
    if (req.url !~ "^/live/") {
        return (pass);
    }
    if (req.method != "GET" && req.method != "HEAD") {
        return (pass);
    }
    unset req.http.Cookie;
    unset req.http.Authorization;
    # The default hash is the full URL (query included) and the host: each blocking reload is its
    # own object.
    return (hash);
}

sub vcl_backend_response {
    if (bereq.url ~ "^/live/") {
        if ((beresp.status >= 500 || beresp.status == 404) && bereq.retries == 0) {
            # An error, or an origin restarted that has not got the channel back yet: the other.
            return (retry);
        }
        if (beresp.status >= 400) {
            # Not what the origin promised to keep: a second, against stampedes.
            set beresp.ttl = 1s;
            set beresp.grace = 0s;
        } elsif (bereq.url ~ "\.m3u8") {
            # Playlists: the origin's max-age, and never an old one after it.
            set beresp.grace = 0s;
        } else {
            # Media never changes: served from the cache even while the origin is away.
            set beresp.grace = 1h;
        }
        # Skip the built-in logic, which would make uncacheable (hit-for-miss) objects.
        return (deliver);
    }
}

sub vcl_deliver {
    if (obj.hits > 0) {
        set resp.http.X-Cache = "HIT";
    } else {
        set resp.http.X-Cache = "MISS";
    }
}
