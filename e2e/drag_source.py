#!/usr/bin/python3
"""A tiny GTK 3 drag source for the end-to-end tests.

WebDriver cannot drag files from outside the page, but Tauri's drop events
come from real XDND drops on the window. This opens a small undecorated
window at X,Y offering one file as `text/uri-list`; the test then drives the
pointer with xdotool (press here, move onto the app, release), and GTK does
the XDND exchange with the app's window like a file manager would.

Usage: drag_source.py PATH X Y    (prints "ready" once mapped; exits after
the drag ends, or after 60 s). Run it with Debian's /usr/bin/python3, which
has PyGObject (python3-gi, gir1.2-gtk-3.0).
"""
import sys
from pathlib import Path

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
from gi.repository import Gdk, GLib, Gtk  # noqa: E402

path, x, y = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
uri = Path(path).resolve().as_uri()

win = Gtk.Window(title="atelier-e2e-drag-source")
win.set_decorated(False)
win.set_default_size(100, 60)
win.move(x, y)
box = Gtk.EventBox()
box.add(Gtk.Label(label=Path(path).name))
win.add(box)

box.drag_source_set(Gdk.ModifierType.BUTTON1_MASK, [], Gdk.DragAction.COPY)
box.drag_source_add_uri_targets()


def on_get(_widget, _ctx, data, _info, _time):
    data.set_uris([uri])


def on_end(*_args):
    print("drag-end", flush=True)
    GLib.timeout_add(300, Gtk.main_quit)


def on_map(*_args):
    print("ready", flush=True)
    return False


box.connect("drag-data-get", on_get)
box.connect("drag-end", on_end)
win.connect("map-event", on_map)
win.show_all()
GLib.timeout_add_seconds(60, Gtk.main_quit)
Gtk.main()
