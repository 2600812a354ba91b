// A code view: CodeMirror once its chunk is loaded (CodeMirrorEditor), and
// until then the same text drawn plainly with CodeMirror's metrics (font,
// line height, padding, the line numbers' gutter, the 480px height), so
// nothing moves when the editor takes its place — only the colours come.
import { lazyModule, useLazyModule } from "../lib/lazy";
import type { Lang } from "./languages";
import "./plain.css";

export type CodeEditorProps = {
  text: string;
  language: Lang | null;
  editable: boolean;
  label: string;
  onChange?: (text: string) => void;
};

const editor = lazyModule(() => import("./CodeMirrorEditor"));

/** Lines drawn before the editor is there: more than the 480px a view shows. */
const PLAIN_LINES = 60;

/** CodeMirror 6, read-only unless `editable`; plain text for the moment its chunk loads. */
export function CodeEditor(props: CodeEditorProps) {
  const loaded = useLazyModule(editor);
  if (loaded === null) return <PlainCode text={props.text} editable={props.editable} />;
  const Editor = loaded.CodeMirrorEditor;
  return <Editor {...props} />;
}

/** The text as CodeMirror lays it out (line numbers, wrapping), without colours. */
export function PlainCode({ text, editable }: { text: string; editable: boolean }) {
  const all = text.split("\n");
  // CodeMirror's gutter is as wide as the last line's number (at least 20px with its padding).
  const digits = String(all.length).length;
  return (
    <div className="code-editor">
      <div className={editable ? "code-plain code-plain-editable" : "code-plain"} aria-busy="true">
        {all.slice(0, PLAIN_LINES).map((line, i) => (
          <div className="code-plain-row" key={i}>
            <span className="code-plain-number" style={{ minWidth: `max(12px, ${digits}ch)` }} aria-hidden="true">
              {i + 1}
            </span>
            <span className="code-plain-line">{line}</span>
          </div>
        ))}
      </div>
    </div>
  );
}
