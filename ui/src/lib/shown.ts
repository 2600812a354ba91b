// Text a bundle or a server chose, shown so that it cannot hide what it
// says: control characters (a line break or a run of tabs pushing the rest
// out of view) and the bidirectional controls that reorder what is drawn
// (U+202E makes "run.sh" read backwards) are written as escapes. The
// consent step shows commands this way, so what you approve is what runs.

// eslint-disable-next-line no-control-regex -- finding control characters is the point
const HIDDEN = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

/** `s` with every hiding character escaped (`\n`, `\u{202e}`…). */
export function shown(s: string): string {
  return s.replace(HIDDEN, (c) => {
    if (c === "\n") return "\\n";
    if (c === "\r") return "\\r";
    if (c === "\t") return "\\t";
    return `\\u{${c.codePointAt(0)!.toString(16)}}`;
  });
}
