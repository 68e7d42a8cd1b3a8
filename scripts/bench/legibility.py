"""What a viewer of one encoded run saw, against the screen it was made from, for the legibility
benchmark: the run is played as a viewer would (each frame shown until the next, 30 times a
second) and every one of those pictures is compared with the lossless grab (SSIM of the luma,
both as yuv420p, through ffmpeg's ssim filter).

    python3 legibility.py MEDIA GRAB WIDTH HEIGHT      (GRAB: raw bgr0 pictures at 30 a second)

Prints "mean worst first_frames", first_frames being the SSIM Y of the first frame of each
segment (its key frame, what a viewer who joins then sees first), comma-separated.

The run began before the grab's replay did, so it is aligned on the grab first: the delay that
makes its pictures closest to the grab's (mean absolute difference of 240x135 grey pictures).
Each picture is then compared with the grab's picture at that moment and its two neighbours, and
keeps the best of the three: a screen grabbed at 30 pictures a second is caught at most a picture
early or late, by the capture of the run as by the replay.
"""

import subprocess
import sys
import tempfile

import numpy

media, grab, width, height = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
raw = ["-f", "rawvideo", "-pix_fmt", "bgr0", "-s", f"{width}x{height}", "-framerate", "30"]
small = (135, 240)


def grey(arguments, before=""):
    """Frames of ffmpeg's input (through the filters `before`), as 240x135 grey pictures."""
    out = subprocess.run(["ffmpeg", "-v", "error", *arguments, "-vf",
                          f"{before}scale=240:135:flags=area,format=gray", "-f", "rawvideo", "-"],
                         check=True, stdout=subprocess.PIPE).stdout
    return numpy.frombuffer(out, numpy.uint8).reshape(-1, *small).astype(numpy.int16)


def delay(run, screen):
    """The number of pictures the run is behind the grab."""
    def distance(lag):  # before the replay began, the screen showed its first picture
        indices = numpy.clip(numpy.arange(len(run)) - lag, 0, len(screen) - 1)
        return numpy.abs(run - screen[indices]).mean()
    return min(range(min(len(run) - 1, 300)), key=distance)


def ssim(lag, work):
    """Per picture of the run from the lag on: the best SSIM Y against the grab's neighbours."""
    shifts = {-1: "tpad=start=1:start_mode=clone,", 0: "", 1: "trim=start_frame=1,setpts=N/30/TB,"}
    graph = [f"[0:v]fps=30,trim=start_frame={lag},setpts=N/30/TB,format=yuv420p,split=3[a0][a1][a2]",
             "[1:v]format=yuv420p,tpad=stop_mode=clone:stop_duration=60,split=3[g0][g1][g2]"]
    outputs = []
    for index, shift in enumerate(shifts.values()):
        graph.append(f"[g{index}]{shift}null[h{index}]")
        graph.append(f"[a{index}][h{index}]ssim=stats_file={work}/{index}.txt:shortest=1[s{index}]")
        outputs += ["-map", f"[s{index}]", "-fps_mode", "passthrough", "-f", "null", "-"]
    # (-v fatal: the null outputs' complaints of repeated timestamps are no concern of the stats.)
    subprocess.run(["ffmpeg", "-v", "fatal", "-i", media, *raw, "-i", grab, "-filter_complex",
                    ";".join(graph), *outputs], check=True)
    columns = []
    for index in range(len(shifts)):
        with open(f"{work}/{index}.txt") as stats:
            columns.append([float(field[2:]) for line in stats for field in line.split()
                            if field.startswith("Y:")])
    count = min(len(column) for column in columns)
    return numpy.max([column[:count] for column in columns], axis=0)


def key_frames():
    """The moments (s) of the run's key frames: where its segments begin."""
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                          "packet=pts_time,flags", "-of", "csv=p=0", media],
                         check=True, stdout=subprocess.PIPE, text=True).stdout
    return [float(line.split(",")[0]) for line in out.split() if "K" in line.split(",")[1]]


run = grey(["-i", media], "fps=30,")
screen = grey([*raw, "-i", grab])
lag = delay(run, screen)
with tempfile.TemporaryDirectory() as work:
    pictures = ssim(lag, work)
starts = [round(moment * 30) - lag for moment in key_frames()]
firsts = [pictures[start] for start in starts if 0 <= start < len(pictures)]
print(f"{pictures.mean():.5f} {pictures.min():.5f} {','.join(f'{value:.4f}' for value in firsts)}")
print(f"(aligned {lag} pictures behind the grab; {len(pictures)} pictures compared)", file=sys.stderr)
