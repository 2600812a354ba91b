// Where the keyboard's focus goes when a dialog or a docked panel opens and
// closes: into it on open, back to what opened it on close (else a person
// on the keyboard lands on <body> and starts again from the top), and, for
// a modal dialog, round inside it with Tab and Shift+Tab until it closes.

import { useEffect, useEffectEvent, type KeyboardEvent as ReactKeyboardEvent, type RefObject } from "react";

/** What Tab can reach inside `root`, in document order. */
export function tabbables(root: HTMLElement): HTMLElement[] {
  const all = root.querySelectorAll<HTMLElement>(
    'a[href], button, input, select, textarea, summary, iframe, [tabindex]:not([tabindex="-1"])',
  );
  return [...all].filter(
    (el) =>
      !(el as HTMLButtonElement).disabled &&
      el.tabIndex >= 0 &&
      el.closest("[hidden], [inert]") === null &&
      !(el instanceof HTMLInputElement && el.type === "hidden"),
  );
}

/**
 * Puts the focus back on what had it before this mount, when this unmounts —
 * if that is still on the page and nothing else took the focus meanwhile
 * (the focus is on <body>, or inside `within`, the closing panel).
 */
export function useReturnFocus(within?: RefObject<HTMLElement | null>): void {
  useEffect(() => {
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const panel = within?.current ?? null;
    return () => {
      if (opener === null || !opener.isConnected) return;
      const now = document.activeElement;
      const lost = now === null || now === document.body || (panel !== null && panel.contains(now));
      // Unmounting took the focused element with it: the focus is on <body>.
      if (lost || !now.isConnected) opener.focus();
    };
  }, [within]);
}

/**
 * A modal dialog's keyboard: the focus moves in (to `initial`, else the
 * first field or button), Tab and Shift+Tab go round inside it, Escape calls
 * `onEscape`, and on close the focus goes back to the opener.
 */
export function useModalFocus(
  dialog: RefObject<HTMLElement | null>,
  onEscape: () => void,
  initial?: RefObject<HTMLElement | null>,
): void {
  const escape = useEffectEvent(onEscape);
  useReturnFocus(dialog);
  useEffect(() => {
    const box = dialog.current;
    if (box === null) return;
    (initial?.current ?? tabbables(box)[0] ?? box).focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") {
        e.preventDefault();
        escape();
        return;
      }
      if (e.key !== "Tab") return;
      const inside = tabbables(box);
      if (inside.length === 0) {
        e.preventDefault();
        return;
      }
      const [first, last] = [inside[0]!, inside.at(-1)!];
      const at = document.activeElement;
      // From the ends, or from anywhere outside (a click on the backdrop).
      if (e.shiftKey && (at === first || !box.contains(at))) {
        e.preventDefault();
        last.focus();
      } else if (!e.shiftKey && (at === last || !box.contains(at))) {
        e.preventDefault();
        first.focus();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [dialog, initial]);
}

/**
 * A panel that opens in place (not modal): the focus moves to its first
 * field on open and back to the opener on close; Tab leaves it as usual.
 */
export function usePanelFocus(panel: RefObject<HTMLElement | null>): void {
  useReturnFocus(panel);
  useEffect(() => {
    const box = panel.current;
    if (box !== null) tabbables(box)[0]?.focus();
  }, [panel]);
}

/**
 * A tablist's arrows (WAI-ARIA tabs, activated on focus): ← → (↑ ↓ in a
 * vertical one, either works) go to the next or previous tab, round the
 * ends, Home and End to the first and last; the selected tab is the one
 * Tab stop (give the others tabIndex -1). On the tablist's onKeyDown.
 */
export function onTablistKeys(e: ReactKeyboardEvent<HTMLElement>): void {
  const tabs = [...e.currentTarget.querySelectorAll<HTMLElement>('[role="tab"]')].filter(
    (t) => !(t as HTMLButtonElement).disabled,
  );
  const at = tabs.indexOf(e.target as HTMLElement);
  if (at < 0) return;
  const n = tabs.length;
  const to = { ArrowRight: at + 1, ArrowDown: at + 1, ArrowLeft: at - 1, ArrowUp: at - 1, Home: 0, End: n - 1 }[e.key];
  if (to === undefined) return;
  e.preventDefault();
  const tab = tabs[(to + n) % n]!;
  tab.focus();
  tab.click();
}
