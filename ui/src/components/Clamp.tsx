// A box cut to a height (set by its CSS class) with a toggle under it, shown
// only when what it holds is taller: a long tool document, a long message.

import { useLayoutEffect, useRef, useState, type ReactNode, type RefObject } from "react";

export type Clamped = {
  /** Cut to its height now (false: open, or nothing to cut). */
  cut: boolean;
  /** What it holds is taller than the cut (the toggle is shown). */
  over: boolean;
  open: boolean;
  toggle: () => void;
};

/** The box's ref, and its state (apart: a ref is not read while rendering). */
export function useClamp(): [RefObject<HTMLDivElement | null>, Clamped] {
  const ref = useRef<HTMLDivElement>(null);
  const [open, setOpen] = useState(false);
  const [over, setOver] = useState(false);
  // Measured after every render (the content may have changed) and when the
  // box's width changes (the text wraps anew); an open box keeps its answer.
  useLayoutEffect(() => {
    const el = ref.current;
    if (el === null || open) return;
    const check = () => setOver(el.scrollHeight > el.clientHeight + 1);
    check();
    if (typeof ResizeObserver === "undefined") return;
    const seen = new ResizeObserver(check);
    seen.observe(el);
    return () => seen.disconnect();
  });
  return [ref, { cut: !open, over, open, toggle: () => setOpen((o) => !o) }];
}

/** The box's class and mark (a cut box with more in it fades at its foot). */
export function clampAttrs(clamp: Clamped, className: string) {
  return {
    className: clamp.cut ? `${className} clamp-cut` : className,
    "data-over": clamp.over && clamp.cut ? "" : undefined,
  };
}

/** The Expand/Collapse (or Show more/less) button under a clamped box. */
export function ClampToggle({ clamp, more, less }: { clamp: Clamped; more: string; less: string }): ReactNode {
  if (!clamp.over) return null;
  return (
    <button
      type="button"
      className="btn btn-small btn-ghost clamp-toggle"
      aria-expanded={clamp.open}
      onClick={clamp.toggle}
    >
      {clamp.open ? less : more}
    </button>
  );
}
