"""The screens of the legibility benchmark, drawn with Tk over the whole X display of $DISPLAY.
Each prints "ok" once drawn, waits 1 s, then moves for MOVING seconds (the video plays on) and
then keeps still:

    python3 scenes.py SCENE WIDTH HEIGHT MOVING

    editor     an editor full of source code, still
    typing     the editor, someone typing 5 characters a second at the end of a line
    scrolling  a long file scrolled a page a second
    slides     a slide of large text and a diagram, a new one every 5 s, still or not
    terminal   a terminal printing 10 lines a second
    video      the still editor with a 320x240 video playing in its bottom right corner
"""

import itertools
import subprocess
import sys
import tkinter

scene, width, height, moving = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
root = tkinter.Tk()
root.title(scene)
root.geometry(f"{width}x{height}+0+0")
root.configure(cursor="none")
source = open(__file__.replace("scenes.py", "flipbook.c")).read()


def editor(length=40_000):
    text = tkinter.Text(root, font=("DejaVu Sans Mono", 13), background="#1e1e1e", foreground="#d4d4d4",
                        insertwidth=0, borderwidth=0, wrap="none")
    text.pack(fill="both", expand=True)
    text.insert("1.0", (source * (length // len(source) + 1))[:length])
    text.see("1.0")
    return text


def every(milliseconds, action, times):
    """Calls action(index) every so many milliseconds, `times` times, the first after 1 s."""
    def step(index=0):
        if index < times:
            action(index)
            root.after(milliseconds, step, index + 1)
    root.after(1000, step)


def typing():
    text = editor()
    text.insert("3.0", "\n")
    typed = "let typed = onair.publish(channel: demo) // a person typing a line of code; "
    every(200, lambda index: text.insert("3.end", typed[index % len(typed)]), int(moving * 5))


def scrolling():
    text = editor(400_000)
    every(1000, lambda index: text.yview_scroll(1, "pages"), int(moving))


def slides():
    canvas = tkinter.Canvas(root, background="#fafafa", highlightthickness=0)
    canvas.pack(fill="both", expand=True)
    titles = ["Live screens, legible", "What a viewer sees", "Half the bytes", "Questions"]

    def slide(index):
        canvas.delete("all")
        canvas.create_text(120, 110, anchor="w", text=titles[index % len(titles)], fill="#202040",
                           font=("DejaVu Sans", 64, "bold"))
        for line in range(4):
            canvas.create_text(140, 260 + line * 80, anchor="w", fill="#303030", font=("DejaVu Sans", 36),
                               text=f"• point {index + 1}.{line + 1}: text that must stay sharp")
        boxes = ["capture", "encode", "package", "serve"]
        for box, name in enumerate(boxes):
            x = 140 + box * 430
            colour = ["#d0e4ff", "#ffe0c0", "#d8f0d0", "#f0d8f0"][(box + index) % 4]
            canvas.create_rectangle(x, 640, x + 330, 800, fill=colour, outline="#404040", width=3)
            canvas.create_text(x + 165, 720, text=name, fill="#202020", font=("DejaVu Sans", 32))
            if box < len(boxes) - 1:
                canvas.create_line(x + 330, 720, x + 430, 720, width=4, arrow="last", fill="#404040")
        canvas.create_text(width - 60, height - 50, anchor="e", text=f"{index + 1} / {len(titles)}",
                           fill="#606060", font=("DejaVu Sans", 24))

    slide(0)
    every(5000, lambda index: slide(index + 1), int(moving // 5) + 2)  # on through the still seconds


def terminal():
    text = tkinter.Text(root, font=("DejaVu Sans Mono", 12), background="#000000", foreground="#c0c0c0",
                        insertwidth=0, borderwidth=0, wrap="none")
    text.pack(fill="both", expand=True)
    lines = itertools.cycle(line for line in source.splitlines() if line.strip())
    for number in range(60):
        text.insert("end", f"[{number:5d}] {next(lines)}\n")
    text.see("end")

    def print_line(index):
        text.insert("end", f"[{index + 60:5d}] compiling {next(lines)}\n")
        text.see("end")
    every(100, print_line, int(moving * 10))


def video():
    editor()
    subprocess.Popen(["ffplay", "-v", "error", "-an", "-noborder", "-left", str(width - 360), "-top",
                      str(height - 280), "-f", "lavfi", "testsrc2=size=320x240:rate=30"])


{"editor": editor, "typing": typing, "scrolling": scrolling, "slides": slides, "terminal": terminal,
 "video": video}[scene]()
root.update()
print("ok", flush=True)
root.mainloop()
