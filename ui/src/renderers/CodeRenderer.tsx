import { useState } from "react";
import { bool, str } from "../lib/json";
import { saverFor, useSaveControls, type Save } from "./SaveControls";
import { CodeEditor } from "./CodeEditor";
import { ContentGate } from "./ContentGate";
import { languageFor } from "./languages";
import type { RendererProps } from "./types";
import { useContent } from "./useContent";

function CodeBody({
  text,
  path,
  language,
  editable,
  save,
}: {
  text: string;
  path: string | null;
  language: string | null;
  editable: boolean;
  save: Save | null;
}) {
  const lang = languageFor(language, path);
  const [draft, setDraft] = useState(text);
  const { bar, below } = useSaveControls({ path, text, draft, setDraft, save });
  // Nothing to show (and nothing to edit): said, not an editor with a lone "1".
  const empty = !editable && text.trim() === "";
  return (
    <div className="code-renderer">
      <div className="renderer-bar">
        {path !== null && <code className="renderer-path">{path}</code>}
        {!empty && <span className="muted small">{lang?.name ?? "Plain text"}</span>}
        {editable && bar}
      </div>
      {below}
      {empty ? (
        <p className="code-empty muted">{path === null ? "No output" : "Empty file"}</p>
      ) : (
        <CodeEditor
          text={editable ? draft : text}
          language={lang}
          editable={editable}
          label={path ?? "Tool output"}
          onChange={setDraft}
        />
      )}
    </div>
  );
}

export function CodeRenderer({ call, plan, config }: RendererProps) {
  const load = useContent(call, config, plan.manifest_id);
  const save = saverFor(call, config);
  return (
    <ContentGate load={load}>
      {(text, path) => (
        <CodeBody
          key={text}
          text={text}
          path={path}
          language={str(config, "language")}
          editable={bool(config, "editable")}
          save={save}
        />
      )}
    </ContentGate>
  );
}
