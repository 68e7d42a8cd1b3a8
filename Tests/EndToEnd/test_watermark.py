"""`--watermark`: what a viewer decodes, compared pixel by pixel with the same frame unwatermarked."""

import subprocess

import pytest

from harness import Publisher, first_segment, free_port, init_segment, run_onair
from pngs import png, solid

W, H, FRAME = 640, 360, 45
# The clock and frame counter rows differ between two runs (wall time), so they are left out.
CLOCK_ROWS = range(150, 250)
BAND = 8  # pixels around the watermark's edge left to the codec's block boundaries


def record(tmp_path, name, *arguments):
    """Publishes 2 s at near-lossless quality and returns frame FRAME as Y, Cb, Cr planes."""
    folder = tmp_path / name
    publisher = Publisher("--size", f"{W}x{H}", "--video-bitrate", "20M", "--audio", "none",
                          "--duration", "2s", "--hls-dir", str(folder), *arguments)
    assert publisher.process.wait(timeout=60) == 0, publisher.output()
    media = folder / "live/demo"
    data = init_segment(media) + first_segment(media).read_bytes()
    raw = subprocess.run(
        ["ffmpeg", "-v", "error", "-i", "-", "-vf", f"select=eq(n\\,{FRAME})", "-frames:v", "1",
         "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"], input=data, capture_output=True, check=True).stdout
    assert len(raw) == W * H * 3 // 2
    return raw[:W * H], raw[W * H:W * H * 5 // 4], raw[W * H * 5 // 4:]


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    return record(tmp_path_factory.mktemp("plain"), "plain")


def limited(r, g, b):
    """8-bit sRGB to limited-range BT.601 Y, Cb, Cr."""
    r, g, b = r / 255, g / 255, b / 255
    return (16 + 65.481 * r + 128.553 * g + 24.966 * b, 128 - 37.797 * r - 74.203 * g + 112 * b,
            128 + 112 * r - 93.786 * g - 18.214 * b)


def check(frame, reference, rect, rgba, opacity=1.0, tolerance=4):
    """Inside the rectangle: the exact blend of the colour over the unwatermarked frame.
    Outside: the unwatermarked frame."""
    x0, y0, w, h = rect
    alpha = rgba[3] / 255 * opacity
    colour = limited(*rgba[:3])
    inside_errors, outside_errors, inside_count = [], [], 0
    for plane, (shift, width) in enumerate([(0, W), (1, W // 2), (1, W // 2)]):
        ours, theirs = frame[plane], reference[plane]
        for y in range(H >> shift):
            full_y = y << shift
            # Under an opaque watermark the picture beneath does not matter, clock or not.
            if full_y in CLOCK_ROWS and not (alpha == 1 and y0 <= full_y < y0 + h):
                continue
            for x in range(width):
                full_x = x << shift
                value, under = ours[y * width + x], theirs[y * width + x]
                inside = x0 + BAND <= full_x < x0 + w - BAND and y0 + BAND <= full_y < y0 + h - BAND
                near = x0 - BAND <= full_x < x0 + w + BAND and y0 - BAND <= full_y < y0 + h + BAND
                if inside:
                    inside_count += 1
                    expected = under * (1 - alpha) + colour[plane] * alpha
                    if abs(value - expected) > tolerance:
                        inside_errors.append((plane, full_x, full_y, value, round(expected, 1)))
                elif not near and full_y not in CLOCK_ROWS and abs(value - under) > tolerance:
                    outside_errors.append((plane, full_x, full_y, value, under))
    assert inside_count > 0, "the rectangle was checked"
    assert inside_errors == [], f"{len(inside_errors)} samples off inside, e.g. {inside_errors[:5]}"
    assert outside_errors == [], f"{len(outside_errors)} samples changed outside, e.g. {outside_errors[:5]}"


RED_HALF = (230, 30, 40, 128)

CASES = {
    # name: (png bytes, extra options, expected rectangle x, y, w, h, colour, opacity)
    "top-left": (solid(64, 48, RED_HALF), ["--watermark-position", "top-left"], (16, 16, 64, 48), RED_HALF, 1),
    "top-right margin 24": (solid(64, 48, RED_HALF), ["--watermark-margin", "24"], (W - 64 - 24, 24, 64, 48), RED_HALF, 1),
    "bottom-left scale 1.5": (solid(40, 32, RED_HALF), ["--watermark-position", "bottom-left", "--watermark-scale", "1.5"],
                              (16, H - 48 - 16, 60, 48), RED_HALF, 1),
    "bottom-right width 96": (solid(64, 32, RED_HALF), ["--watermark-position", "bottom-right", "--watermark-width", "96"],
                              (W - 96 - 16, H - 48 - 16, 96, 48), RED_HALF, 1),
    "center opaque": (solid(80, 40, (20, 200, 90, 255), "rgb"), ["--watermark-position", "center"],
                      ((W - 80) // 2, (H - 40) // 2, 80, 40), (20, 200, 90, 255), 1),
    "X,Y negative opacity": (solid(64, 48, (250, 250, 250, 255)), ["--watermark-position", "-40,-30", "--watermark-opacity", "0.4"],
                             (W - 64 - 40, H - 48 - 30, 64, 48), (250, 250, 250, 255), 0.4),
    "16-bit": (solid(64, 48, RED_HALF, "rgba16"), ["--watermark-position", "top-left"], (16, 16, 64, 48), RED_HALF, 1),
    "palette with tRNS": (solid(64, 48, RED_HALF, "palette"), ["--watermark-position", "top-left"], (16, 16, 64, 48), RED_HALF, 1),
    "grey with alpha": (solid(64, 48, (200, 200, 200, 96), "grey-alpha"), ["--watermark-position", "bottom-left"],
                        (16, H - 48 - 16, 64, 48), (200, 200, 200, 96), 1),
}


@pytest.mark.parametrize("name", list(CASES))
def test_watermark_is_blended_exactly_where_asked(tmp_path, reference, name):
    image, options, rect, rgba, opacity = CASES[name]
    path = tmp_path / "mark.png"
    path.write_bytes(image)
    frame = record(tmp_path, "marked", "--watermark", str(path), *options)
    check(frame, reference, rect, rgba, opacity)


def test_an_image_larger_than_the_picture_is_shrunk_with_a_warning(tmp_path):
    path = tmp_path / "huge.png"
    path.write_bytes(solid(1600, 400, (255, 255, 255, 255), "rgb"))
    publisher = Publisher("--size", "640x360", "--duration", "1s", "--audio", "none", "--watermark", str(path))
    assert publisher.process.wait(timeout=60) == 0
    assert "the watermark is larger than the 640x360 picture: shrunk to fit" in publisher.output()


def test_the_sample_logo_works():
    result = run_onair("publish", "--port", str(free_port()), "--duration", "1s", "--audio", "none",
                       "--watermark", "web/logo.png")
    assert result.returncode == 0, result.stderr


BAD = {
    "missing": (None, "cannot be read; check the path"),
    "jpeg renamed": (b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00", "is not a PNG file; convert it to PNG"),
    "truncated": (solid(32, 32, RED_HALF)[:-40], "is a damaged or truncated PNG; export it again"),
    "corrupt": (solid(32, 32, RED_HALF)[:60] + b"\x00" * 8 + solid(32, 32, RED_HALF)[68:],
                "is a damaged or truncated PNG; export it again"),
    "zero-sized": (png(0, 0, 6, []), "has no pixels (zero width or height)"),
    "empty file": (b"", "is not a PNG file; convert it to PNG"),
}


@pytest.mark.parametrize("name", list(BAD))
def test_bad_watermark_is_one_line_and_status_2(tmp_path, name):
    content, message = BAD[name]
    path = tmp_path / "logo.png"
    if content is not None:
        path.write_bytes(content)
    out = tmp_path / "out"
    result = run_onair("publish", "--port", str(free_port()), "--hls-dir", str(out), "--watermark", str(path))
    assert result.returncode == 2, result.stderr
    assert result.stderr == f"onair: --watermark {path} {message}\n"
    assert not out.exists(), "nothing is written"


@pytest.mark.parametrize("arguments, message", [
    (["--watermark-opacity", "0.5"], "the --watermark-… options need --watermark FILE.png"),
    (["--watermark", "web/logo.png", "--watermark-opacity", "1.5"], "--watermark-opacity 1.5 is out of range: 0 to 1"),
    (["--watermark", "web/logo.png", "--watermark-scale", "2", "--watermark-width", "100"],
     "give --watermark-scale or --watermark-width, not both"),
    (["--watermark", "web/logo.png", "--watermark-position", "middle"], "--watermark-position"),
])
def test_bad_watermark_options(arguments, message):
    result = run_onair("publish", *arguments)
    assert result.returncode == 2
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1, result.stderr
