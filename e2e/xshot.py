#!/usr/bin/python3
"""A screenshot of the whole X screen, as a PNG, for the end-to-end tests.

WebDriver's screenshots show only the webview; a native dialog (the GTK file
chooser of Export ZIP…) is a window of its own, so it is captured here from
the root window. Run it with Debian's /usr/bin/python3 (python3-gi,
gir1.2-gtk-3.0), on the test's DISPLAY.

Usage: xshot.py OUT.png
"""
import sys

import gi

gi.require_version("Gdk", "3.0")
from gi.repository import Gdk  # noqa: E402

root = Gdk.get_default_root_window()
shot = Gdk.pixbuf_get_from_window(root, 0, 0, root.get_width(), root.get_height())
if shot is None:
    sys.exit("xshot.py: could not read the root window")
shot.savev(sys.argv[1], "png", [], [])
