import { useCallback, useEffect, useEffectEvent, useRef, useState } from "react";

export type Load<T> =
  { state: "loading"; data: T | null } | { state: "ok"; data: T } | { state: "error"; data: T | null; error: unknown };

/**
 * Runs `fetcher` when `key` changes (and on `reload()`), keeping the last
 * data while reloading. A result that arrives after a newer request is dropped.
 * `scope` (a chat's id): data of another scope is never shown, not even
 * while the new scope's read is under way.
 */
export function useLoad<T>(
  fetcher: () => Promise<T>,
  key: string,
  scope: string | null = null,
): [Load<T>, () => void, (data: T) => void] {
  const [load, setLoad] = useState<Load<T>>({ state: "loading", data: null });
  const [nonce, setNonce] = useState(0);
  const seq = useRef(0);
  // A new key or a reload shows "loading" (with the last data) in the same
  // render, not one render later from the effect.
  const request = `${nonce}:${key}`;
  const [requested, setRequested] = useState({ request, scope });
  if (requested.request !== request || requested.scope !== scope) {
    const sameScope = requested.scope === scope;
    setRequested({ request, scope });
    setLoad((prev) => ({ state: "loading", data: sameScope ? prev.data : null }));
  }
  // The latest fetcher, without a new request when only its identity changed.
  const fetchNow = useEffectEvent(() => fetcher());

  useEffect(() => {
    const mine = ++seq.current;
    fetchNow().then(
      (data) => {
        if (seq.current === mine) setLoad({ state: "ok", data });
      },
      (error: unknown) => {
        if (seq.current === mine) setLoad((prev) => ({ state: "error", data: prev.data, error }));
      },
    );
  }, [key, nonce, scope]);

  const reload = useCallback(() => setNonce((n) => n + 1), []);
  const set = useCallback((data: T) => {
    seq.current += 1;
    setLoad({ state: "ok", data });
  }, []);
  return [load, reload, set];
}
