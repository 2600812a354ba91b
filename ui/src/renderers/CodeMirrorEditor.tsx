// The code view proper: CodeMirror 6 with line numbers, our highlight
// colours and a grammar loaded on demand. Its own chunk, with CodeMirror:
// CodeEditor shows the same text plainly until it is loaded.
import { defaultKeymap, history, historyKeymap } from "@codemirror/commands";
import { bracketMatching, syntaxHighlighting } from "@codemirror/language";
import { Compartment, EditorState, type Extension } from "@codemirror/state";
import {
  EditorView,
  drawSelection,
  highlightActiveLine,
  highlightActiveLineGutter,
  keymap,
  lineNumbers,
} from "@codemirror/view";
import { useEffect, useEffectEvent, useRef } from "react";
import type { CodeEditorProps } from "./CodeEditor";
import { highlight } from "./highlight";

const theme = EditorView.theme({
  "&": { backgroundColor: "var(--code-bg)", color: "var(--text)", fontSize: "13px" },
  ".cm-content": { fontFamily: "var(--font-mono)", caretColor: "var(--accent)" },
  ".cm-gutters": { backgroundColor: "var(--code-bg)", color: "var(--muted)", border: "none" },
  ".cm-activeLine, .cm-activeLineGutter": { backgroundColor: "var(--hover)" },
  "&.cm-focused": { outline: "2px solid var(--focus)" },
  ".cm-scroller": { maxHeight: "480px", overflow: "auto" },
});

/** CodeMirror 6, read-only unless `editable` (a chunk of its own: see CodeEditor). */
export function CodeMirrorEditor({ text, language, editable, label, onChange }: CodeEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const grammar = useRef(new Compartment());
  // The latest onChange, without rebuilding the editor when it changes.
  const changed = useEffectEvent((text: string) => onChange?.(text));

  useEffect(() => {
    if (host.current === null) return;
    const extensions: Extension[] = [
      lineNumbers(),
      highlightActiveLineGutter(),
      drawSelection(),
      bracketMatching(),
      syntaxHighlighting(highlight),
      EditorView.lineWrapping,
      theme,
      EditorState.readOnly.of(!editable),
      EditorView.editable.of(editable),
      EditorView.contentAttributes.of({ "aria-label": label }),
      EditorView.updateListener.of((u) => {
        if (u.docChanged) changed(u.state.doc.toString());
      }),
    ];
    if (editable) extensions.push(history(), highlightActiveLine(), keymap.of([...defaultKeymap, ...historyKeymap]));
    extensions.push(grammar.current.of([]));
    const v = new EditorView({ parent: host.current, state: EditorState.create({ doc: text, extensions }) });
    view.current = v;
    return () => {
      v.destroy();
      view.current = null;
    };
    // The document and the grammar are synced below; a new mode rebuilds the editor.
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `text` is synced by the effect below, not by a rebuild
  }, [editable, label]);

  useEffect(() => {
    let live = true;
    const v = view.current;
    if (v === null) return;
    if (language === null) v.dispatch({ effects: grammar.current.reconfigure([]) });
    else {
      language.load().then(
        (support) => live && view.current === v && v.dispatch({ effects: grammar.current.reconfigure(support) }),
        () => undefined, // plain text if a grammar fails to load
      );
    }
    return () => {
      live = false;
    };
  }, [language, editable, label]);

  useEffect(() => {
    const v = view.current;
    if (v !== null && v.state.doc.toString() !== text) {
      v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: text } });
    }
  }, [text]);

  return <div className="code-editor" ref={host} />;
}
