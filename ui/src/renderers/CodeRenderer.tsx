import { useState } from "react";
import { bool, str } from "../lib/json";
import { CodeEditor } from "./CodeEditor";
import { ContentGate } from "./ContentGate";
import { languageFor } from "./languages";
import type { RendererProps } from "./types";
import { useContent } from "./useContent";

function CodeBody({ text, path, language, editable }: { text: string; path: string | null; language: string | null; editable: boolean }) {
  const lang = languageFor(language, path);
  const [draft, setDraft] = useState(text);
  const dirty = editable && draft !== text;
  return (
    <div className="code-renderer">
      <div className="renderer-bar">
        {path !== null && <code className="renderer-path">{path}</code>}
        <span className="muted small">{lang?.name ?? "Plain text"}</span>
        {dirty && (
          <>
            <span className="small warning-text">Edited here only: not saved to the workspace.</span>
            <button type="button" className="btn btn-small btn-ghost" onClick={() => setDraft(text)}>
              Revert
            </button>
          </>
        )}
      </div>
      <CodeEditor
        text={editable ? draft : text}
        language={lang}
        editable={editable}
        label={path ?? "Tool output"}
        onChange={setDraft}
      />
    </div>
  );
}

export function CodeRenderer({ call, plan, config }: RendererProps) {
  const load = useContent(call, config, plan.manifest_id);
  return (
    <ContentGate load={load}>
      {(text, path) => (
        <CodeBody key={text} text={text} path={path} language={str(config, "language")} editable={bool(config, "editable")} />
      )}
    </ContentGate>
  );
}
