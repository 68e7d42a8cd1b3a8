vcl 4.1;

# A Varnish edge cache in front of `onair serve` (the origin). Run it with, for example:
#   varnishd -a :80 -f /etc/varnish/onair-edge.vcl -s malloc,1g
# and set the origin's address below.
#
# What it relies on from the origin: segments, parts and init segments are immutable for a year;
# playlists carry max-age=1 (never no-cache, which Varnish would turn into hit-for-miss objects,
# so that requests stop collapsing); a blocking reload (_HLS_msn, _HLS_part) is cacheable under its
# full URL for as long as it may be held. Varnish's waiting list then makes every viewer asking for
# the same object at once cost the origin one request.

backend origin {
    .host = "127.0.0.1";
    .port = "8080";
    # Longer than the origin holds a blocking reload (three target durations).
    .first_byte_timeout = 30s;
    .between_bytes_timeout = 30s;
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
