import { useMemo, useState, type MouseEvent } from "react";
import { clampAttrs, ClampToggle, useClamp } from "../components/Clamp";
import { onTablistKeys } from "../lib/focus";
import { bool } from "../lib/json";
import { useLazyModule } from "../lib/lazy";
import { CodeEditor } from "./CodeEditor";
import { saverFor, useSaveControls, type Save } from "./SaveControls";
import { ContentGate } from "./ContentGate";
import { languageFor } from "./languages";
import { markdownIt } from "./markdown";
import type { RendererProps } from "./types";
import { useContent } from "./useContent";

/** Links in a tool's document must never navigate the app's window. */
function stayHere(e: MouseEvent<HTMLDivElement>) {
  if (e.target instanceof Element && e.target.closest("a") !== null) e.preventDefault();
}

/**
 * A tool's document, cut at the code view's height (480px) with
 * Expand/Collapse when longer; its source as written until markdown-it is
 * loaded.
 */
export function MarkdownView({ source }: { source: string }) {
  const kit = useLazyModule(markdownIt);
  const html = useMemo(() => (kit === null ? null : kit.renderMarkdown(source)), [kit, source]);
  const [box, clamp] = useClamp();
  return (
    <>
      {html === null ? (
        <div key="plain" ref={box} {...clampAttrs(clamp, "markdown-body clamp-doc markdown-plain")}>
          {source}
        </div>
      ) : (
        <div
          key="html"
          ref={box}
          {...clampAttrs(clamp, "markdown-body clamp-doc")}
          onClick={stayHere}
          dangerouslySetInnerHTML={{ __html: html }}
        />
      )}
      <ClampToggle clamp={clamp} more="Expand" less="Collapse" />
    </>
  );
}

const MARKDOWN = languageFor("markdown", null);

function DocumentBody({
  text,
  path,
  editable,
  save,
}: {
  text: string;
  path: string | null;
  editable: boolean;
  save: Save | null;
}) {
  const [mode, setMode] = useState<"preview" | "source">("preview");
  const [draft, setDraft] = useState(text);
  const { bar, below } = useSaveControls({ path, text, draft, setDraft, save });
  return (
    <div className="document-renderer">
      <div className="renderer-bar">
        {path !== null && <code className="renderer-path">{path}</code>}
        {editable && (
          <div
            className="segmented segmented-small"
            role="tablist"
            aria-label="Document view"
            onKeyDown={onTablistKeys}
          >
            <button
              type="button"
              role="tab"
              aria-selected={mode === "preview"}
              tabIndex={mode === "preview" ? 0 : -1}
              onClick={() => setMode("preview")}
            >
              Preview
            </button>
            <button
              type="button"
              role="tab"
              aria-selected={mode === "source"}
              tabIndex={mode === "source" ? 0 : -1}
              onClick={() => setMode("source")}
            >
              Edit
            </button>
          </div>
        )}
        {editable && bar}
      </div>
      {below}
      {mode === "source" ? (
        <CodeEditor text={draft} language={MARKDOWN} editable label={path ?? "Document"} onChange={setDraft} />
      ) : (
        <MarkdownView source={draft} />
      )}
    </div>
  );
}

export function DocumentRenderer({ call, plan, config }: RendererProps) {
  const load = useContent(call, config, plan.manifest_id);
  return (
    <ContentGate load={load}>
      {(text, path) => (
        <DocumentBody
          key={text}
          text={text}
          path={path}
          editable={bool(config, "editable")}
          save={saverFor(call, config)}
        />
      )}
    </ContentGate>
  );
}
