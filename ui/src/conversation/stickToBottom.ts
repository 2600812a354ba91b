// The conversation follows its end like a chat: a chat opens at its latest
// message, and while the view is at the bottom (or a run was just started)
// new content — a streaming answer, a card that grows — keeps it there.
// Scrolling up to read leaves it where the person put it.

import { useEffect, useRef, type RefObject } from "react";
import { useRunField } from "./runStore";

/** How close to the end still counts as "at the end" (px). */
const SLACK = 48;

function toEnd(el: HTMLElement) {
  el.scrollTop = el.scrollHeight;
}

export function useStickToBottom(scroller: RefObject<HTMLElement | null>, chatId: string | null) {
  const stuck = useRef(true);
  const run = useRunField(chatId, (r) => r?.seq ?? null);

  // A new chat, or a new run in it: to the end.
  useEffect(() => {
    stuck.current = true;
    if (scroller.current !== null) toEnd(scroller.current);
  }, [scroller, chatId, run]);

  useEffect(() => {
    const el = scroller.current;
    if (el === null) return;
    const onScroll = () => {
      stuck.current = el.scrollHeight - el.scrollTop - el.clientHeight <= SLACK;
    };
    el.addEventListener("scroll", onScroll, { passive: true });
    if (typeof ResizeObserver === "undefined") return () => el.removeEventListener("scroll", onScroll);
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
      el.removeEventListener("scroll", onScroll);
      follow.disconnect();
      children.disconnect();
    };
  }, [scroller]);
}
