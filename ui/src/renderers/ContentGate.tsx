import type { ReactNode } from "react";
import { ErrorBox, Notice, Spinner } from "../components/feedback";
import { formatBytes } from "../lib/format";
import type { Load } from "../lib/useLoad";
import type { Content } from "./useContent";

/** Loading, error, binary and empty states of a content-backed renderer. */
export function ContentGate({
  load,
  children,
}: {
  load: Load<Content>;
  children: (text: string, path: string | null) => ReactNode;
}) {
  if (load.state === "error") return <ErrorBox error={load.error} title="The file could not be read." />;
  if (load.state === "loading" || load.data === null) return <Spinner label="Loading…" />;
  const c = load.data;
  if (c.kind === "none") return <Notice>This renderer was given neither a file nor content.</Notice>;
  if (c.kind === "binary") {
    return (
      <Notice>
        {c.path} is a binary file ({formatBytes(c.size)}) and can’t be shown as text.
      </Notice>
    );
  }
  return <>{children(c.text, c.path)}</>;
}
