// A message of the core's with `backticked` parts: each is shown as code,
// and a command (`atelier …`) gets a Copy button beside it.

import { CopyButton } from "../conversation/CopyButton";

export function CodeText({ text }: { text: string }) {
  const parts = text.split("`");
  // An odd count of backticks: the last one is text, not an opening.
  if (parts.length % 2 === 0) return <>{text}</>;
  return (
    <>
      {parts.map((p, i) =>
        i % 2 === 0 ? (
          p
        ) : p.startsWith("atelier ") ? (
          <span key={i} className="code-command">
            <code>{p}</code>
            <CopyButton text={p} label={`Copy the command: ${p}`} />
          </span>
        ) : (
          <code key={i}>{p}</code>
        ),
      )}
    </>
  );
}
