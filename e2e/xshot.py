#!/usr/bin/python3
"""A screenshot of the X screen, or of a part of it, as a PNG, for the
end-to-end tests.

The tests take their screenshots here rather than through WebDriver: with
WebKit's shared-memory renderer (the one the app picks without a GPU, see
src-tauri/src/display.rs) WebKitWebDriver's screenshot command never
answers. The X server has every window's pixels, native dialogs included (the
GTK file chooser of Export ZIP… is a window WebDriver cannot see). Run it
with Debian's /usr/bin/python3 (python3-gi, gir1.2-gtk-3.0), on the test's
DISPLAY.

Usage: xshot.py OUT.png [X Y WIDTH HEIGHT]
"""
import sys

import gi

gi.require_version("Gdk", "3.0")
from gi.repository import Gdk  # noqa: E402

root = Gdk.get_default_root_window()
if len(sys.argv) == 6:
    x, y, w, h = (int(v) for v in sys.argv[2:])
    # Clipped to the screen: a window may reach past its edge.
    w = min(w, root.get_width() - x)
    h = min(h, root.get_height() - y)
else:
    x, y, w, h = 0, 0, root.get_width(), root.get_height()
shot = Gdk.pixbuf_get_from_window(root, x, y, w, h)
if shot is None:
    sys.exit("xshot.py: could not read the root window")
shot.savev(sys.argv[1], "png", [], [])
