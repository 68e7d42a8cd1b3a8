"""A full-screen editor for the cadence benchmark: a Tk text widget filled with source code in a
monospace font, on the X display of $DISPLAY; with a rate, it types that many characters a second
at the end of the text, as a person would, for a number of seconds (or until it is stopped).
Prints "ok" once drawn, and "typed" once the typing has ended.

    python3 editor.py WIDTH HEIGHT [CHARACTERS_PER_SECOND [SECONDS]]
"""

import sys
import tkinter

width, height = int(sys.argv[1]), int(sys.argv[2])
rate = float(sys.argv[3]) if len(sys.argv) > 3 else 0
typing_seconds = float(sys.argv[4]) if len(sys.argv) > 4 else float("inf")
root = tkinter.Tk()
root.title("editor")
root.geometry(f"{width}x{height}+0+0")
root.configure(cursor="none")
text = tkinter.Text(root, font=("DejaVu Sans Mono", 13), background="#1e1e1e", foreground="#d4d4d4",
                    insertwidth=0, borderwidth=0, wrap="none")
text.pack(fill="both", expand=True)
source = open(__file__.replace("editor.py", "flipbook.c")).read()
while len(source) < 40_000:
    source += source
text.insert("1.0", source[:40_000])
text.see("1.0")
typed = "let typed = onair.publish(channel: demo) // a person typing at the end of the line; "


def type_one(index=0):
    if index >= rate * typing_seconds:
        print("typed", flush=True)
        return
    text.insert("3.0", typed[index % len(typed)])
    root.after(int(1000 / rate), type_one, index + 1)


root.update()
print("ok", flush=True)
if rate > 0:
    root.after(500, type_one)
root.mainloop()
