"""A busy X screen for the damage tests: a textured backdrop over the whole screen, and changes
on it driven over stdin, each answered with `ok` once drawn:

    animate X Y W H N   redraw a WxH patch at X,Y with a new texture N times, 50 ms apart
    window X Y W H      open a textured window there (one at a time)
    move X Y            move it
    close               close it
    entry X Y           a text field there, focused, for xdotool to type into (its caret does not blink)
    blink               let the caret blink
    quit

    python3 xscene.py WIDTH HEIGHT FOLDER
"""

import math
import sys
import threading
import tkinter
from pathlib import Path

width, height, folder = int(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])


def texture(path, w, h, seed):
    """A PPM of fine diagonal stripes in colour with a grid: edges everywhere, which show any seam
    or stale part once scaled."""
    rows = []
    for y in range(h):
        row = bytearray()
        for x in range(w):
            r = int(127 + 120 * math.sin((x + 2 * y + seed * 13) / 3.1))
            g = int(127 + 120 * math.sin((2 * x - y + seed * 7) / 4.3))
            b = 255 if (x + seed) % 37 < 2 or (y + seed) % 29 < 2 else int(127 + 100 * math.sin(x * y / 997 + seed))
            row += bytes((r, g, b))
        rows.append(bytes(row))
    path.write_bytes(f"P6 {w} {h} 255\n".encode() + b"".join(rows))
    return path


root = tkinter.Tk()
root.overrideredirect(True)
root.geometry(f"{width}x{height}+0+0")
canvas = tkinter.Canvas(root, width=width, height=height, highlightthickness=0, borderwidth=0)
canvas.place(x=0, y=0)
# The backdrop: a tile repeated (drawing a whole 4K texture in Python would take a minute).
tile = tkinter.PhotoImage(file=str(texture(folder / "tile.ppm", 256, 256, 0)))
for ty in range(0, height, 256):
    for tx in range(0, width, 256):
        canvas.create_image(tx, ty, image=tile, anchor="nw")
patches = [tkinter.PhotoImage(file=str(texture(folder / f"patch{n}.ppm", 320, 240, n + 1))) for n in range(4)]
images = {}
state = {"window": None, "entry": None}


def answer():
    root.update()
    print("ok", flush=True)


def animate(x, y, w, h, count, step=0):
    if step == count:
        return answer()
    if "patch" not in images:
        images["patch"] = canvas.create_image(x, y, image=patches[0], anchor="nw")
    canvas.itemconfigure(images["patch"], image=patches[step % len(patches)])
    canvas.coords(images["patch"], x, y)
    root.after(50, lambda: animate(x, y, w, h, count, step + 1))


def window(x, y, w, h):
    top = tkinter.Toplevel(root)
    top.overrideredirect(True)
    top.geometry(f"{w}x{h}+{x}+{y}")
    label = tkinter.Label(top, image=patches[2], borderwidth=0)
    label.place(x=0, y=0)
    state["window"] = top
    answer()


def entry(x, y):
    field = tkinter.Entry(root, font=("DejaVu Sans Mono", 20), insertofftime=0, width=30)
    field.place(x=x, y=y)
    field.focus_force()
    state["entry"] = field
    answer()


def commands():
    for line in sys.stdin:
        words = line.split()
        numbers = [int(w) for w in words[1:]]
        if words[0] == "animate":
            root.after(0, lambda n=numbers: animate(*n))
        elif words[0] == "window":
            root.after(0, lambda n=numbers: window(*n))
        elif words[0] == "move":
            root.after(0, lambda n=numbers: (state["window"].geometry(f"+{n[0]}+{n[1]}"), answer()))
        elif words[0] == "close":
            root.after(0, lambda: (state["window"].destroy(), answer()))
        elif words[0] == "entry":
            root.after(0, lambda n=numbers: entry(*n))
        elif words[0] == "blink":
            root.after(0, lambda: (state["entry"].configure(insertofftime=300, insertontime=300), answer()))
        elif words[0] == "quit":
            root.after(0, root.destroy)
            return


threading.Thread(target=commands, daemon=True).start()
root.after(0, answer)
root.mainloop()
