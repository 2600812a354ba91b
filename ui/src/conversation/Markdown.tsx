// A message's markdown: finished blocks rendered once (memoized), the
// growing tail re-rendered as the stream goes; code fences with their
// language highlighted and a Copy code button. Everything is sanitized the
// way the document renderer's markdown is. markdown-it is a chunk of its
// own (blocks.ts): until it is loaded, the message's text is shown as
// written.

import { memo, useEffect, useState, type MouseEvent } from "react";
import { lazyModule, useLazyModule } from "../lib/lazy";
import { languageFor } from "../renderers/languages";
import "../renderers/plain.css";
import type { Block, Piece } from "./blocks";
import { CopyButton } from "./CopyButton";

type Kit = typeof import("./blocks");
const kitModule = lazyModule(() => import("./blocks"));

/** Links in an answer open nothing inside the app's window. */
function stayHere(e: MouseEvent<HTMLDivElement>) {
  if (e.target instanceof Element && e.target.closest("a") !== null) e.preventDefault();
}

/** Highlighted pieces of `code`, once its grammar is loaded (null: plain). */
function useHighlighted(code: string, lang: string, enabled: boolean): Piece[] | null {
  const kit = useLazyModule(kitModule);
  const [pieces, setPieces] = useState<{ code: string; pieces: Piece[] } | null>(null);
  useEffect(() => {
    const language = enabled && kit !== null ? languageFor(lang, null) : null;
    if (language === null || kit === null) return;
    let live = true;
    language.load().then(
      (support) => {
        if (live) setPieces({ code, pieces: kit.highlightedPieces(code, support) });
      },
      () => undefined, // plain text then
    );
    return () => {
      live = false;
    };
  }, [code, lang, enabled, kit]);
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

const HtmlBlock = memo(function HtmlBlock({ kit, block }: { kit: Kit; block: Block }) {
  return <div className="md-block" dangerouslySetInnerHTML={{ __html: kit.blockHtml(block) }} />;
});

function BlockView({ kit, block, growing }: { kit: Kit; block: Block; growing: boolean }) {
  if (block.fence !== null) return <CodeBlock code={block.fence.code} lang={block.fence.lang} growing={growing} />;
  return <HtmlBlock kit={kit} block={block} />;
}

const DoneBlock = memo(function DoneBlock({ kit, block }: { kit: Kit; block: Block }) {
  return <BlockView kit={kit} block={block} growing={false} />;
});

/**
 * `source` as markdown. While `streaming`, only the last block is drawn
 * anew when the text grows. Its text as written for the moment markdown-it
 * loads (it is asked for at once, and after the first paint in any case).
 */
export function Markdown({ source, streaming = false }: { source: string; streaming?: boolean }) {
  const kit = useLazyModule(kitModule);
  if (kit === null) return <div className="markdown-body message-markdown markdown-plain">{source}</div>;
  return <Blocks kit={kit} source={source} streaming={streaming} />;
}

function Blocks({ kit, source, streaming }: { kit: Kit; source: string; streaming: boolean }) {
  // One follower per message: it keeps the finished blocks between renders.
  const [stream] = useState(() => new kit.BlockStream());
  // A finished message shares the parse kept for its text; a streaming or
  // very long one keeps its own (its blocks then stay the same objects).
  const { done, tail } = streaming || !kit.keepsParsed(source) ? stream.update(source) : kit.finishedBlocks(source);
  return (
    <div className="markdown-body message-markdown" onClick={stayHere}>
      {done.map((b) => (
        <DoneBlock key={b.key} kit={kit} block={b} />
      ))}
      {tail !== null && <BlockView key={tail.key} kit={kit} block={tail} growing={streaming} />}
    </div>
  );
}
