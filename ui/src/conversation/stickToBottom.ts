// The conversation follows its end like a chat: a chat opens at its latest
// message, and while the view is at the bottom (or a run was just started)
// new content — a streaming answer, a card that grows — keeps it there.
// Scrolling up to read leaves it where the person put it, and so does a
// view put somewhere on purpose (`holdPlace`: a branch switch keeping its
// branch point in place), even when that place is the end.

import { useEffect, useRef, type RefObject } from "react";
import { useRunField } from "./runStore";

/** How close to the end still counts as "at the end" (px). */
const SLACK = 48;

function toEnd(el: HTMLElement) {
  el.scrollTop = el.scrollHeight;
}

const HOLD = "atelier-hold-place";

/** `el` was scrolled where it is on purpose: following the end lets go of it. */
export function holdPlace(el: HTMLElement) {
  el.dispatchEvent(new Event(HOLD));
}

export function useStickToBottom(scroller: RefObject<HTMLElement | null>, chatId: string | null) {
  const stuck = useRef(true);
  // Where `holdPlace` put the view: the scroll event that move fires later
  // must not read "at the end" as the person's wish to follow it.
  const heldAt = useRef<number | null>(null);
  const run = useRunField(chatId, (r) => r?.seq ?? null);

  // A new chat, or a new run in it: to the end.
  useEffect(() => {
    stuck.current = true;
    heldAt.current = null;
    if (scroller.current !== null) toEnd(scroller.current);
  }, [scroller, chatId, run]);

  useEffect(() => {
    const el = scroller.current;
    if (el === null) return;
    const onScroll = () => {
      if (heldAt.current !== null && Math.abs(el.scrollTop - heldAt.current) < 1) return;
      heldAt.current = null;
      stuck.current = el.scrollHeight - el.scrollTop - el.clientHeight <= SLACK;
    };
    const onHold = () => {
      heldAt.current = el.scrollTop;
      stuck.current = false;
    };
    el.addEventListener("scroll", onScroll, { passive: true });
    el.addEventListener(HOLD, onHold);
    const unlisten = () => {
      el.removeEventListener("scroll", onScroll);
      el.removeEventListener(HOLD, onHold);
    };
    if (typeof ResizeObserver === "undefined") return unlisten;
    const follow = new ResizeObserver(() => {
      if (stuck.current) toEnd(el);
    });
    follow.observe(el);
    for (const child of el.children) follow.observe(child);
    // Children come and go (the setup section, the spinner): watch them too.
    const children = new MutationObserver(() => {
      for (const child of el.children) follow.observe(child);
    });
    children.observe(el, { childList: true });
    return () => {
      unlisten();
      follow.disconnect();
      children.disconnect();
    };
  }, [scroller]);
}
