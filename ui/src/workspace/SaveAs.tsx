// "Save as…" for one workspace file version: the backend asks where (a native
// save dialog) and copies it there; we say where it went, or why it did not.

import { useState } from "react";
import { api } from "../api";
import { ErrorBox, Notice } from "../components/feedback";

type Saving =
  { state: "idle" } | { state: "saving" } | { state: "saved"; to: string } | { state: "failed"; error: unknown };

export function useSaveAs(chatId: string, manifestId: string, path: string) {
  const [saving, setSaving] = useState<Saving>({ state: "idle" });
  const save = () => {
    setSaving({ state: "saving" });
    api.exportWorkspaceFile(chatId, manifestId, path).then(
      // null: the person closed the dialog, which is not news.
      (to) => setSaving(to === null ? { state: "idle" } : { state: "saved", to }),
      (error: unknown) => setSaving({ state: "failed", error }),
    );
  };
  return { saving, save, dismiss: () => setSaving({ state: "idle" }) };
}

export type SaveAs = ReturnType<typeof useSaveAs>;

export function SaveAsButton({ saver, primary = false }: { saver: SaveAs; primary?: boolean }) {
  const busy = saver.saving.state === "saving";
  return (
    <button
      type="button"
      className={primary ? "btn btn-primary" : "btn btn-small"}
      disabled={busy}
      onClick={saver.save}
    >
      {busy ? "Saving…" : "Save as…"}
    </button>
  );
}

/** Where the file went, or what went wrong. */
export function SaveAsStatus({ saver }: { saver: SaveAs }) {
  const s = saver.saving;
  if (s.state === "saved") return <Notice tone="success">Saved to {s.to}.</Notice>;
  if (s.state === "failed")
    return <ErrorBox error={s.error} title="The file was not saved." onDismiss={saver.dismiss} />;
  return null;
}
