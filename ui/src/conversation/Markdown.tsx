// A message's markdown: finished blocks rendered once (memoized), the
// growing tail re-rendered as the stream goes; code fences with their
// language highlighted and a Copy code button. Everything is sanitized the
// way the document renderer's markdown is.

import { memo, useEffect, useState, type MouseEvent } from "react";
import { classHighlighter, highlightCode } from "@lezer/highlight";
import { languageFor } from "../renderers/languages";
import { blockHtml, BlockStream, finishedBlocks, keepsParsed, type Block } from "./blocks";
import { CopyButton } from "./CopyButton";

/** Links in an answer open nothing inside the app's window. */
function stayHere(e: MouseEvent<HTMLDivElement>) {
  if (e.target instanceof Element && e.target.closest("a") !== null) e.preventDefault();
}

type Piece = [text: string, classes: string];

/** Highlighted pieces of `code`, once its grammar is loaded (null: plain). */
function useHighlighted(code: string, lang: string, enabled: boolean): Piece[] | null {
  const [pieces, setPieces] = useState<{ code: string; pieces: Piece[] } | null>(null);
  useEffect(() => {
    const language = enabled ? languageFor(lang, null) : null;
    if (language === null) return;
    let live = true;
    language.load().then(
      (support) => {
        if (!live) return;
        const out: Piece[] = [];
        highlightCode(
          code,
          support.language.parser.parse(code),
          classHighlighter,
          (text, classes) => out.push([text, classes]),
          () => out.push(["\n", ""]),
        );
        setPieces({ code, pieces: out });
      },
      () => undefined, // plain text then
    );
    return () => {
      live = false;
    };
  }, [code, lang, enabled]);
  return pieces !== null && pieces.code === code ? pieces.pieces : null;
}

/** A fenced code block; highlighted once it stops growing. */
export const CodeBlock = memo(function CodeBlock({
  code,
  lang,
  growing,
}: {
  code: string;
  lang: string;
  growing: boolean;
}) {
  const pieces = useHighlighted(code, lang, !growing);
  return (
    <div className="code-fence">
      <div className="code-fence-bar">
        <span className="code-fence-lang">{lang === "" ? "text" : lang}</span>
        <CopyButton text={code} label="Copy code" />
      </div>
      <pre className="code-fence-pre">
        <code>
          {pieces === null
            ? code
            : pieces.map(([text, classes], i) =>
                classes === "" ? (
                  text
                ) : (
                  <span key={i} className={classes}>
                    {text}
                  </span>
                ),
              )}
        </code>
      </pre>
    </div>
  );
});

const HtmlBlock = memo(function HtmlBlock({ block }: { block: Block }) {
  return <div className="md-block" dangerouslySetInnerHTML={{ __html: blockHtml(block) }} />;
});

function BlockView({ block, growing }: { block: Block; growing: boolean }) {
  if (block.fence !== null) return <CodeBlock code={block.fence.code} lang={block.fence.lang} growing={growing} />;
  return <HtmlBlock block={block} />;
}

const DoneBlock = memo(function DoneBlock({ block }: { block: Block }) {
  return <BlockView block={block} growing={false} />;
});

/**
 * `source` as markdown. While `streaming`, only the last block is drawn
 * anew when the text grows.
 */
export function Markdown({ source, streaming = false }: { source: string; streaming?: boolean }) {
  // One follower per message: it keeps the finished blocks between renders.
  const [stream] = useState(() => new BlockStream());
  // A finished message shares the parse kept for its text; a streaming or
  // very long one keeps its own (its blocks then stay the same objects).
  const { done, tail } = streaming || !keepsParsed(source) ? stream.update(source) : finishedBlocks(source);
  return (
    <div className="markdown-body message-markdown" onClick={stayHere}>
      {done.map((b) => (
        <DoneBlock key={b.key} block={b} />
      ))}
      {tail !== null && <BlockView key={tail.key} block={tail} growing={streaming} />}
    </div>
  );
}
