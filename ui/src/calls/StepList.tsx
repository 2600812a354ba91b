// The steps of the active branch as a list. A long chat (thousands of
// calls, each card with an editor or a frame) renders only the steps near
// the viewport (@tanstack/react-virtual, measuring each card's real
// height); a short one renders every step, so nothing jumps while cards
// load. Steps the person typed or clicked in stay mounted when scrolled
// away, so an unsaved edit in a renderer is never thrown away.

import { useEffect, useLayoutEffect, useRef, useState, type ReactNode } from "react";
import { defaultRangeExtractor, useVirtualizer } from "@tanstack/react-virtual";
import { revealWhileLoading } from "./CallList";
import type { Step } from "./StepItem";

/** From this many steps on, only those near the viewport are rendered. */
export const VIRTUAL_FROM = 60;

/** `deferBody`: the list is scrolling past this step; render it light. */
type Props = { steps: Step[]; focusId: string | null; render: (step: Step, deferBody: boolean) => ReactNode };

export function StepList(props: Props) {
  return props.steps.length >= VIRTUAL_FROM ? <VirtualSteps {...props} /> : <AllSteps {...props} />;
}

function useReveal(list: React.RefObject<HTMLOListElement | null>, focusId: string | null, deps: unknown) {
  const shown = useRef<string | null>(null);
  useEffect(() => {
    if (focusId === null || shown.current === focusId) return;
    const item = [...(list.current?.children ?? [])].find(
      (el) => el instanceof HTMLElement && el.dataset.callId === focusId,
    );
    if (!(item instanceof HTMLElement)) return;
    shown.current = focusId;
    return revealWhileLoading(item);
  }, [list, focusId, deps]);
}

function AllSteps({ steps, focusId, render }: Props) {
  const list = useRef<HTMLOListElement>(null);
  useReveal(list, focusId, steps.length);
  return (
    <ol className="call-list" ref={list} aria-label="Active branch">
      {steps.map((step) => (
        <li key={step.node.id} data-call-id={step.call?.id} data-node-id={step.node.id}>
          {render(step, false)}
        </li>
      ))}
    </ol>
  );
}

/** The element that scrolls the page around `el` (the main pane). */
export function scrollerOf(el: HTMLElement | null): HTMLElement | null {
  for (let p = el?.parentElement ?? null; p !== null; p = p.parentElement) {
    const { overflowY } = getComputedStyle(p);
    if (overflowY === "auto" || overflowY === "scroll") return p;
  }
  return null;
}

function VirtualSteps({ steps, focusId, render }: Props) {
  const list = useRef<HTMLOListElement>(null);
  const [scroller, setScroller] = useState<HTMLElement | null>(null);
  // Where the list starts inside the scroller: the runner form above it
  // grows and shrinks, so this is read after every render.
  const [margin, setMargin] = useState(0);
  // eslint-disable-next-line react-hooks/exhaustive-deps -- after every render by design; both setters are guarded
  useLayoutEffect(() => {
    const s = scroller ?? scrollerOf(list.current);
    if (s !== scroller) setScroller(s);
    if (s === null || list.current === null) return;
    const top = list.current.getBoundingClientRect().top - s.getBoundingClientRect().top + s.scrollTop;
    if (Math.abs(top - margin) > 1) setMargin(top);
  });
  const touched = useRef(new Set<number>());
  // eslint-disable-next-line react-hooks/incompatible-library -- only says React Compiler would skip this component; the app is not built with it
  const v = useVirtualizer({
    count: steps.length,
    getScrollElement: () => scroller,
    estimateSize: () => 280,
    overscan: 3,
    // Before the first measurement (and in tests): a typical window.
    initialRect: { width: 900, height: 900 },
    scrollMargin: margin,
    gap: 12,
    getItemKey: (i) => steps[i]!.node.id,
    rangeExtractor: (range) => {
      const keep = new Set(defaultRangeExtractor(range));
      for (const i of touched.current) if (i < steps.length) keep.add(i);
      return [...keep].sort((a, b) => a - b);
    },
  });

  // The call just run: scroll to it, then keep it in view while it loads.
  const focusIndex = focusId === null ? -1 : steps.findIndex((s) => s.call?.id === focusId);
  const asked = useRef<string | null>(null);
  useEffect(() => {
    if (focusIndex < 0 || scroller === null || asked.current === focusId) return;
    asked.current = focusId;
    v.scrollToIndex(focusIndex, { align: "end" });
  }, [v, scroller, focusIndex, focusId]);
  const items = v.getVirtualItems();
  useReveal(list, focusId, items.length > 0 ? `${items[0]!.index}-${items.at(-1)!.index}` : "");

  const touch = (index: number) => touched.current.add(index);
  // While the list scrolls, steps coming into view are drawn without their
  // renderer (built when scrolling stops); steps already drawn in full stay so.
  const full = useRef(new Set<string | number | bigint>());
  const nowFull = new Set<string | number | bigint>();
  for (const item of items) if (!v.isScrolling || full.current.has(item.key)) nowFull.add(item.key);
  full.current = nowFull;
  return (
    <ol
      className="call-list call-list-virtual"
      ref={list}
      aria-label="Active branch"
      style={{ height: v.getTotalSize() }}
    >
      {items.map((item) => {
        const step = steps[item.index]!;
        return (
          <li
            key={item.key}
            ref={v.measureElement}
            data-index={item.index}
            data-call-id={step.call?.id}
            data-node-id={step.node.id}
            style={{ transform: `translateY(${item.start - v.options.scrollMargin}px)` }}
            onFocus={() => touch(item.index)}
            onInput={() => touch(item.index)}
          >
            {render(step, !nowFull.has(item.key))}
          </li>
        );
      })}
    </ol>
  );
}
