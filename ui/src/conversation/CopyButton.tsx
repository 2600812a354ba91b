// Copies a text to the clipboard and says so for a moment.

import { useEffect, useState } from "react";

export function CopyButton({ text, label, className = "" }: { text: string; label: string; className?: string }) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  useEffect(() => {
    if (state === "idle") return;
    const t = setTimeout(() => setState("idle"), 1500);
    return () => clearTimeout(t);
  }, [state]);
  const copy = () => {
    const clip = typeof navigator !== "undefined" ? navigator.clipboard : undefined;
    if (clip === undefined) {
      setState("failed");
      return;
    }
    clip.writeText(text).then(
      () => setState("copied"),
      () => setState("failed"),
    );
  };
  return (
    <button
      type="button"
      className={`btn btn-small btn-ghost copy-button ${className}`.trim()}
      aria-label={label}
      title={state === "failed" ? "The clipboard refused the text" : label}
      onClick={copy}
    >
      {state === "copied" ? "Copied" : state === "failed" ? "Not copied" : "Copy"}
    </button>
  );
}
