import { useEffect, type RefObject } from "react";

/** The fields a person types into, in the form's order (not the Form / Raw JSON switch). */
const FIELDS = [
  ...["input:not([type=hidden])", "textarea", "select", '[contenteditable="true"]'].map((f) => `.form-fields ${f}`),
  "textarea.raw-json",
].join(", ");

/**
 * Each time a tool is picked (`picked` counts the picks), its form under
 * `box` scrolls into view with the cursor in its first field, or on Run
 * when the tool takes no arguments, so the person can type at once.
 */
export function useFocusChosenForm(box: RefObject<HTMLElement | null>, picked: number) {
  useEffect(() => {
    if (picked === 0) return;
    const form = box.current?.querySelector<HTMLFormElement>("form.tool-runner");
    if (form == null) return;
    const first =
      [...form.querySelectorAll<HTMLElement>(FIELDS)].find((el) => !el.matches(":disabled")) ??
      form.querySelector<HTMLElement>('button[type="submit"]');
    if (typeof form.scrollIntoView === "function") form.scrollIntoView({ block: "start" });
    first?.focus({ preventScroll: true });
  }, [box, picked]);
}
