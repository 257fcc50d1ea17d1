#!/usr/bin/python3
"""Clicks through the workbench by hand on a machine without xdotool: real X input events (the XTest
extension, through ctypes on libX11/libXtst) into an Xvfb display, and screenshots read from the
frame buffer Xvfb keeps in a file with -fbdir (PIL writes the PNG). docs/testing.md, "Clicking through
the workbench", shows a session; this is how the walkthrough was followed and the launch freeze found.

    Xvfb :77 -screen 0 1600x1000x24 -fbdir /tmp/fb &
    DISPLAY=:77 build/app/gui/mixerlab-gui projects/demo/project.json &
    DISPLAY=:77 XDRIVE_FBDIR=/tmp/fb tools/gui/xdrive.py shot s.png | click X Y [N] | rclick X Y |
        move X Y | type TEXT | key COMBO... | wheel X Y N

Coordinates are screen pixels. Without a window manager a window takes keyboard shortcuts only
after a click inside it."""
import ctypes, os, struct, sys, time
from PIL import Image

x11 = ctypes.cdll.LoadLibrary("libX11.so.6")
xtst = ctypes.cdll.LoadLibrary("libXtst.so.6")
x11.XOpenDisplay.restype = ctypes.c_void_p
x11.XStringToKeysym.restype = ctypes.c_ulong
x11.XKeysymToKeycode.argtypes = [ctypes.c_void_p, ctypes.c_ulong]
for f in ("XTestFakeMotionEvent", "XTestFakeButtonEvent", "XTestFakeKeyEvent"):
    getattr(xtst, f).argtypes = None
d = x11.XOpenDisplay(None)
dp = ctypes.c_void_p(d)

def flush():
    x11.XFlush(dp); time.sleep(0.05)

def move(x, y):
    xtst.XTestFakeMotionEvent(dp, 0, int(x), int(y), 0); flush()

def button(b, press):
    xtst.XTestFakeButtonEvent(dp, b, press, 0); flush()

def click(x, y, n=1, b=1):
    move(x, y)
    for _ in range(n):
        button(b, 1); button(b, 0)

SHIFTED = set('~!@#$%^&*()_+{}|:"<>?') | set("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
NAMES = {" ": "space", ",": "comma", ".": "period", "=": "equal", "-": "minus", "_": "underscore", ":": "colon",
         "/": "slash", "'": "apostrophe", "\n": "Return", "(": "parenleft", ")": "parenright", "+": "plus"}

def keycode(name):
    return x11.XKeysymToKeycode(dp, x11.XStringToKeysym(name.encode()))

def key(combo):
    parts = combo.split("+")
    mods = {"ctrl": "Control_L", "shift": "Shift_L", "alt": "Alt_L"}
    codes = [keycode(mods.get(p.lower(), p)) for p in parts]
    for c in codes: xtst.XTestFakeKeyEvent(dp, c, 1, 0)
    for c in reversed(codes): xtst.XTestFakeKeyEvent(dp, c, 0, 0)
    flush()

def type_text(text):
    for ch in text:
        name = NAMES.get(ch, ch)
        shift = ch in SHIFTED
        c = keycode(name)
        if shift: xtst.XTestFakeKeyEvent(dp, keycode("Shift_L"), 1, 0)
        xtst.XTestFakeKeyEvent(dp, c, 1, 0); xtst.XTestFakeKeyEvent(dp, c, 0, 0)
        if shift: xtst.XTestFakeKeyEvent(dp, keycode("Shift_L"), 0, 0)
        flush()

def shot(out):
    time.sleep(0.3)
    data = open(os.path.join(os.environ.get("XDRIVE_FBDIR", "/tmp/fb"), "Xvfb_screen0"), "rb").read()
    h = struct.unpack(">25I", data[:100])
    header, width, height, bpl, ncolors = h[0], h[4], h[5], h[12], h[19]
    start = header + ncolors * 12
    img = Image.frombuffer("RGB", (width, height), data[start:start + bpl * height], "raw", "BGRX", bpl, 1)
    img.save(out)

cmd = sys.argv[1]
a = sys.argv[2:]
if cmd == "shot": shot(a[0])
elif cmd == "click": click(a[0], a[1], int(a[2]) if len(a) > 2 else 1)
elif cmd == "rclick": click(a[0], a[1], 1, 3)
elif cmd == "move": move(a[0], a[1])
elif cmd == "type": type_text(" ".join(a))
elif cmd == "key":
    for k in a: key(k)
elif cmd == "wheel":
    move(a[0], a[1]); n = int(a[2]); b = 4 if n > 0 else 5
    for _ in range(abs(n)): button(b, 1); button(b, 0)
