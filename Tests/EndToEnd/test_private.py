"""Private channels (`--viewer-token`): playlists and media need a signed, expiring URL; the
playlists carry the signature into every URI they list, so a player that signs only its first
request still plays; edges in front still keep one copy per object for every viewer of a link."""

import base64
import hashlib
import hmac
import re
import time
from datetime import datetime, timezone

import pytest

from edges import NginxEdge, Origin, VarnishEdge, Viewers
from harness import Publisher, fetch, ffprobe, init_name, run_onair, wait_until
from hls_rules import MediaPlaylist, check_low_latency, check_media_playlist, next_part, parse_parts

SECRET = "viewer-secret-0123456789"
LIVE = ("--low-latency", "--part-duration", "0.2", "--size", "640x360", "--no-serve")


def sign(channel, expires, secret=SECRET):
    """A token as the README documents it, made here independently of onair."""
    digest = hmac.new(secret.encode(), f"onair-viewer:{channel}:{expires}".encode(), hashlib.sha256).digest()
    return f"{expires}." + base64.urlsafe_b64encode(digest).decode().rstrip("=")


def host_links(base):
    """The channels as the host's backend gets them: signed links, with the viewer secret."""
    return fetch(f"{base}/api/channels", headers={"Authorization": f"Bearer {SECRET}"}).json()


def token_of(url):
    return re.search(r"[?&]token=([^&]+)", url).group(1)


@pytest.fixture(scope="module")
def private(tmp_path_factory):
    """A publisher pushing Low-Latency HLS into an origin whose channels are private, with an nginx
    and a Varnish edge in front; and the link the host hands out."""
    origin = Origin("--viewer-token", SECRET)
    publisher = Publisher(*LIVE, *origin.push_arguments())
    folder = tmp_path_factory.mktemp("private-edges")
    edges = {"nginx": NginxEdge(folder / "nginx", origin.port), "varnish": VarnishEdge(folder / "varnish", origin.port)}

    def listed():
        channels = host_links(origin.base)
        if not channels or "playlist" not in channels[0]:
            return False
        media = fetch(f"{origin.base}/live/demo/media.m3u8?token={token_of(channels[0]['playlist'])}")
        return media.status == 200 and media.text.count("#EXTINF") >= 2
    try:
        wait_until(listed, 30, what="two segments of the private channel at the origin")
        yield origin, edges, token_of(host_links(origin.base)[0]["playlist"])
    finally:
        for edge in edges.values():
            edge.stop()
        publisher.kill()
        origin.stop()


def test_media_needs_a_working_token_for_its_channel(private):
    origin, edges, token = private
    base = f"{origin.base}/live/demo/"
    text = fetch(f"{base}media.m3u8?token={token}").text
    names = ["index.m3u8", "media.m3u8", init_name(text).split("?")[0],
             MediaPlaylist(text).segments[-1]["uri"].split("?")[0],
             parse_parts(text)[0][-1][2]["URI"].strip('"').split("?")[0]]
    now = int(time.time())
    refused = {
        "no token": "",
        "a tampered one": token[:-2] + ("AA" if not token.endswith("AA") else "BB"),
        "another channel's": sign("other", now + 600),
        "another secret's": sign("demo", now + 600, secret="another-secret-0123456789"),
        "an expired one": sign("demo", now - 1),
        "a later expiry under the old signature": f"{now + 86400}." + token.split(".")[1],
        "not a token": "hello",
    }
    for name in names:
        for what, bad in refused.items():
            response = fetch(f"{base}{name}?token={bad}" if bad else base + name)
            assert response.status == 403, (name, what, response.status)
            assert b"private" in response.body
        # A token made outside onair with the documented recipe works, as does the host's.
        for good in (token, sign("demo", now + 600)):
            assert fetch(f"{base}{name}?token={good}").status == 200, name
    # The edges pass the refusal on.
    for edge in edges.values():
        assert fetch(f"{edge.base}/live/demo/index.m3u8").status == 403


def test_every_uri_in_the_playlists_carries_the_token(private):
    origin, _, token = private
    base = f"{origin.base}/live/demo/"
    index = fetch(f"{base}index.m3u8?token={token}").text
    uris = [line for line in index.splitlines() if line and not line.startswith("#")]
    assert uris == [f"media.m3u8?token={token}"]
    text = fetch(f"{base}media.m3u8?token={token}").text
    msn, part = next_part(text)
    blocking = fetch(f"{base}media.m3u8?_HLS_msn={msn}&_HLS_part={part}&token={token}").text
    delta = fetch(f"{base}media.m3u8?_HLS_skip=YES&token={token}").text
    for playlist in (text, blocking, delta):
        check_low_latency(playlist)
        listed = [line for line in playlist.splitlines() if line and not line.startswith("#")]
        listed += re.findall(r'URI="([^"]*)"', playlist)
        assert len(listed) > 10
        for uri in listed:
            assert uri.endswith(f"?token={token}"), uri
    assert re.search(r'#EXT-X-MAP:URI="init\d*\.mp4\?token=', text)
    assert re.search(r'#EXT-X-PRELOAD-HINT:TYPE=PART,URI="part[0-9.]+m4s\?token=', blocking)
    check_media_playlist(MediaPlaylist(text), "fmp4", window=6)
    # A session's multivariant playlist keeps both queries.
    session = fetch(f"{base}index.m3u8?session=abcdef12&token={token}").text
    assert f"media.m3u8?session=abcdef12&token={token}" in session


def test_caches_keep_a_private_answer_no_longer_than_its_token(private):
    origin, _, token = private
    base = f"{origin.base}/live/demo/"
    left = int(token.split(".")[0]) - time.time()
    lifetime = 3600
    assert lifetime - 5 < left <= 2 * lifetime, "a link handed out now works for one to two lifetimes"
    text = fetch(f"{base}media.m3u8?token={token}").text
    msn, part = next_part(text)
    segment = MediaPlaylist(text).segments[-1]["uri"]
    # A blocking reload's answer is kept by edges only, for a second (browsers keep none).
    expected = {
        f"media.m3u8?token={token}": lambda ages: ages == ("1", None),
        f"media.m3u8?_HLS_msn={msn}&_HLS_part={part}&token={token}": lambda ages: ages == ("0", "1"),
        f"{init_name(text).split('?')[0]}?token={token}": lambda ages: ages[1] is None and left - 5 <= int(ages[0]) <= left + 1,
        segment: lambda ages: ages[1] is None and left - 5 <= int(ages[0]) <= left + 1,
    }
    for name, check in expected.items():
        cache_control = fetch(base + name).headers["cache-control"]
        assert "immutable" not in cache_control and "no-cache" not in cache_control, name
        ages = re.fullmatch(r"public, max-age=(\d+)(?:, s-maxage=(\d+))?", cache_control)
        assert ages and check(ages.groups()), (name, cache_control)


def test_the_api_hands_links_only_to_who_may_have_them(private):
    origin, _, token = private
    stranger = fetch(f"{origin.base}/api/channels").json()[0]
    assert stranger["private"] is True and "playlist" not in stranger and stranger["watch"] == "/watch/demo"
    wrong = fetch(f"{origin.base}/api/channels", headers={"Authorization": "Bearer not-the-secret-012345"}).json()[0]
    assert "playlist" not in wrong
    expired = fetch(f"{origin.base}/api/channels?token={sign('demo', int(time.time()) - 1)}").json()[0]
    assert "playlist" not in expired
    # A viewer's working token: links with that same token, never a longer-lived one.
    viewer_token = sign("demo", int(time.time()) + 120)
    viewer = fetch(f"{origin.base}/api/channels?token={viewer_token}").json()[0]
    assert viewer["playlist"] == f"/live/demo/index.m3u8?token={viewer_token}"
    assert viewer["watch"] == f"/watch/demo?token={viewer_token}"
    assert viewer["embed"] == f"/embed/demo?token={viewer_token}"
    host = host_links(origin.base)[0]
    assert host["playlist"] == f"/live/demo/index.m3u8?token={token}", "one link for everyone in a period"
    expires = datetime.fromtimestamp(int(token.split(".")[0]), timezone.utc)
    assert host["linksExpireAt"] == expires.strftime("%Y-%m-%dT%H:%M:%S.000Z")


@pytest.mark.parametrize("where", ["nginx", "varnish"])
def test_viewers_of_one_link_cost_the_origin_one_request_per_object(private, where):
    origin, edges, token = private
    before = origin.requests()
    viewers = Viewers(edges[where].port, 30, query=f"token={token}")
    wait_until(lambda: viewers.requests >= 30 * 2 * 10 or viewers.errors, 30, interval=0.2, what="the viewers' load")
    viewers.stop()
    requests = origin.requests() - before
    assert viewers.errors == []
    assert all(uri.endswith(f"token={token}") for uri in viewers.uris), "every request signed"
    print(f"{where}: {viewers.requests} signed viewer requests for {len(viewers.uris)} objects, {requests:.0f} at the origin")
    assert requests <= 1.1 * len(viewers.uris), (requests, len(viewers.uris), viewers.requests)


def test_a_player_given_only_the_first_url_plays_through_an_edge(private):
    from browser import player_status, save_screenshot, start_chromium

    _, edges, token = private
    base = edges["varnish"].base
    # ffmpeg signs nothing but the URL it is given.
    probe = ffprobe(f"{base}/live/demo/index.m3u8?token={token}")
    assert {stream["codec_name"] for stream in probe["streams"]} == {"h264", "aac"}
    driver = start_chromium()
    try:
        driver.get(f"{base}/watch/demo?engine=mse&token={token}")
        wait_until(lambda: (player_status(driver)["time"] or 0) > 2, 30, interval=0.2, what="private playback")
        assert player_status(driver)["width"] == 640
        embed = driver.find_element("id", "embed-iframe").get_attribute("value")
        assert f"/embed/demo?token={token}" in embed
        save_screenshot(driver, "private-watch.png")
        driver.get(f"{base}/watch/demo")
        wait_until(lambda: "This channel is private" in driver.find_element("css selector", ".message").text, 15,
                   interval=0.2, what="the page to say the channel is private")
        assert player_status(driver)["state"] is None, "no player started without a link"
    finally:
        driver.quit()


def test_publish_makes_its_own_channel_private():
    publisher = Publisher("--viewer-token", SECRET, "--size", "320x180", "--duration", "60s")
    try:
        wait_until(lambda: "[started]" in publisher.output(), 30, what="the broadcast to start")
        watch = re.search(r"watch at (\S+),", publisher.output()).group(1)
        token = token_of(watch)
        assert watch == f"{publisher.base}/watch/demo?token={token}"
        assert "the channel is private" in publisher.output()
        wait_until(lambda: publisher.get(f"media.m3u8?token={token}").status == 200, 30, what="the private playlist")
        assert publisher.get("media.m3u8").status == 403
        wait_until(lambda: publisher.get(f"media.m3u8?token={token}").text.count("#EXTINF") >= 1, 30,
                   what="a segment")
        probe = ffprobe(publisher.url(f"index.m3u8?token={token}"))
        assert {stream["codec_name"] for stream in probe["streams"]} == {"h264", "aac"}
        # Its thumbnail too: refused without the token, listed and previewed with it.
        assert publisher.get("thumbnail.jpg").status == 403
        entry = next(c for c in fetch(f"{publisher.base}/api/channels?token={token}").json() if c["name"] == "demo")
        assert entry["thumbnail"] == f"/live/demo/thumbnail.jpg?token={token}"
        assert publisher.get(f"thumbnail.jpg?token={token}").status == 200
        assert "thumbnail" not in next(c for c in fetch(f"{publisher.base}/api/channels").json())
        page = fetch(watch).text
        assert f'<meta property="og:image" content="{publisher.base}/live/demo/thumbnail.jpg?token={token}">' in page
        # Without the token (or with a wrong one) the page names no picture that would answer 403.
        for bare in (f"{publisher.base}/watch/demo", f"{publisher.base}/watch/demo?token=made-up.token"):
            assert 'property="og:image"' not in fetch(bare).text, bare
    finally:
        publisher.stop()


@pytest.mark.parametrize("arguments, env, message", [
    (("serve", "--viewer-token", "short"), {}, "--viewer-token must be at least 16 characters"),
    (("serve",), {"ONAIR_VIEWER_TOKEN": "short"}, "ONAIR_VIEWER_TOKEN must be at least 16 characters"),
    (("publish", "--viewer-token", "has a space in it 0123"), {}, "--viewer-token must be at least 16 characters"),
    (("publish", "--viewer-token", SECRET, "--viewer-link-lifetime", "10s"), {},
     "--viewer-link-lifetime must be 1 min to 7 days"),
])
def test_bad_viewer_token_input_is_one_line_and_status_2(arguments, env, message):
    result = run_onair(*arguments, env={"ONAIR_INGEST_TOKEN": "test-ingest-token-0123456789", **env})
    assert result.returncode == 2, result.stderr
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
