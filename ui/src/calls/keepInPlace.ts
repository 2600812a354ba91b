// Keeps a row of the conversation at the same place on screen while the
// content around it changes: a branch switch replaces every message after
// the branch point, and the new branch's layout settles over the next
// frames (a long list measures the rows it draws, cards load their
// previews). The row is put back on each of those frames, until the layout
// holds still or the person scrolls.

import { holdPlace } from "../conversation/stickToBottom";

/** How long the layout may go on moving after a switch (ms). */
const SETTLE = 1200;

/**
 * Scrolls `scroller` so `row` is `top` px from the viewport's top again,
 * with room below a branch too short to scroll that far (padding on
 * `box`). `fresh`: the room made for the previous branch is given back first.
 */
function place(box: HTMLElement, scroller: HTMLElement, row: HTMLElement, top: number, fresh: boolean) {
  const want = scroller.scrollTop + row.getBoundingClientRect().top - top;
  if (!fresh && Math.abs(want - scroller.scrollTop) < 1) return;
  // (Measured twice: a view shorter than the screen hides how much shorter.)
  const room = () => want - (scroller.scrollHeight - scroller.clientHeight);
  if (fresh) box.style.paddingBottom = "";
  let pad = parseFloat(box.style.paddingBottom) || 0;
  for (let i = 0; i < 2 && room() > 0; i++) {
    pad += Math.ceil(room());
    box.style.paddingBottom = `${pad}px`;
  }
  scroller.scrollTop = want;
  // The conversation's follower of the end must not take the view there:
  // it is where the person was reading, not at the end.
  holdPlace(scroller);
}

/**
 * Puts `row()` (looked up afresh each frame: a long list redraws its rows)
 * back at `top` now and on every frame until the layout settles; returns
 * the function that stops it (the next switch, the view going away).
 */
export function keepInPlace(
  box: HTMLElement,
  scroller: HTMLElement,
  row: () => HTMLElement | null,
  top: number,
): () => void {
  const first = row();
  if (first === null) return () => undefined;
  place(box, scroller, first, top, true);
  const until = performance.now() + SETTLE;
  let frame = 0;
  const doc = scroller.ownerDocument;
  const stop = () => {
    cancelAnimationFrame(frame);
    for (const ev of PERSON) scroller.removeEventListener(ev, stop);
    doc.removeEventListener("keydown", stop);
  };
  // The person scrolling takes over (the keys scroll from anywhere on the page).
  for (const ev of PERSON) scroller.addEventListener(ev, stop, { passive: true });
  doc.addEventListener("keydown", stop);
  const tick = () => {
    const el = row();
    if (el !== null) place(box, scroller, el, top, false);
    if (performance.now() < until) frame = requestAnimationFrame(tick);
    else stop();
  };
  frame = requestAnimationFrame(tick);
  return stop;
}

/** What a person does to scroll (a programmatic scroll fires none of these). */
const PERSON = ["wheel", "touchstart", "pointerdown"] as const;
