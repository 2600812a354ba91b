// One event the shell sends (Tauri's `emit`), heard while a component is
// mounted: the listener is registered once and removed when it goes, also
// when it goes before the registration has answered. An event may say
// something changed: reads under way are not shared with those it causes.

import { useEffect, useEffectEvent } from "react";
import { listen } from "@tauri-apps/api/event";
import { forgetReads } from "../api";

/** Calls `on` with each `name` event's payload; `failed` if it cannot listen. */
export function useEvent<T>(name: string, on: (payload: T) => void, failed?: (e: unknown) => void): void {
  const hear = useEffectEvent(on);
  const cannot = useEffectEvent((e: unknown) => failed?.(e));
  useEffect(() => {
    let unlisten: (() => void) | null = null;
    let disposed = false;
    listen<T>(name, (event) => {
      forgetReads();
      hear(event.payload);
    }).then(
      (fn) => {
        if (disposed) fn();
        else unlisten = fn;
      },
      (e: unknown) => cannot(e),
    );
    return () => {
      disposed = true;
      unlisten?.();
    };
  }, [name]);
}
