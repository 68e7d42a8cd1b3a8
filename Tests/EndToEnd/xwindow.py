"""A solid-colour X window for the screen tests, driven over stdin: `move X Y`, `hide`, `show`, `quit`.

    python3 xwindow.py TITLE COLOUR WxH+X+Y
"""

import sys
import threading
import tkinter

title, colour, geometry = sys.argv[1:4]
root = tkinter.Tk()
root.title(title)
root.configure(background=colour, cursor="none")
root.geometry(geometry)
size = geometry.split("+")[0]


def commands():
    for line in sys.stdin:
        words = line.split()
        if words[:1] == ["move"]:
            root.after(0, lambda w=words: root.geometry(f"{size}+{w[1]}+{w[2]}"))
        elif words[:1] == ["hide"]:
            root.after(0, root.withdraw)
        elif words[:1] == ["show"]:
            root.after(0, root.deiconify)
        elif words[:1] == ["quit"]:
            root.after(0, root.destroy)
            return
        root.after(0, lambda: (root.update(), print("ok", flush=True)))


threading.Thread(target=commands, daemon=True).start()
root.after(0, lambda: (root.update(), print("ok", flush=True)))
root.mainloop()
