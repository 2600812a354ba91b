import { useEffect, useRef } from "react";
import type { ToolCallRecord } from "../bindings";
import { EmptyState } from "../components/feedback";
import { CallCard } from "./CallCard";

/**
 * Scrolls a new call into view, and again while its view loads and grows
 * (a lazy renderer, a file read) during the first two seconds.
 */
export function revealWhileLoading(item: HTMLElement): (() => void) | undefined {
  if (typeof item.scrollIntoView !== "function") return undefined;
  const reveal = () => item.scrollIntoView({ behavior: "smooth", block: "nearest" });
  reveal();
  if (typeof ResizeObserver === "undefined") return undefined;
  const observer = new ResizeObserver(reveal);
  observer.observe(item);
  const stop = window.setTimeout(() => observer.disconnect(), 2000);
  return () => {
    window.clearTimeout(stop);
    observer.disconnect();
  };
}

/**
 * A chat's calls, oldest first (newest last). `focusId`, the call just run,
 * is brought into view once it is in the list.
 */
export function CallList({ calls, focusId = null }: { calls: ToolCallRecord[]; focusId?: string | null }) {
  const list = useRef<HTMLOListElement>(null);
  const shown = useRef<string | null>(null);
  useEffect(() => {
    if (focusId === null || shown.current === focusId) return;
    const items = list.current?.children ?? [];
    const item = [...items].find((el) => el instanceof HTMLElement && el.dataset.callId === focusId);
    if (!(item instanceof HTMLElement)) return;
    shown.current = focusId;
    return revealWhileLoading(item);
  }, [focusId, calls]);

  if (calls.length === 0) {
    return <EmptyState title="No calls yet">Run a tool above: its output appears here.</EmptyState>;
  }
  return (
    <ol className="call-list" ref={list}>
      {calls.map((c) => (
        <li key={c.id} data-call-id={c.id}>
          <CallCard call={c} />
        </li>
      ))}
    </ol>
  );
}
