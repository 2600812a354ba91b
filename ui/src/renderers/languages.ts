import type { LanguageSupport } from "@codemirror/language";

// Each grammar is its own chunk, loaded when a view first needs it.
export type Lang = { name: string; load: () => Promise<LanguageSupport> };

const LANGS: Record<string, Lang> = {
  javascript: { name: "JavaScript", load: () => import("@codemirror/lang-javascript").then((m) => m.javascript()) },
  jsx: { name: "JSX", load: () => import("@codemirror/lang-javascript").then((m) => m.javascript({ jsx: true })) },
  typescript: {
    name: "TypeScript",
    load: () => import("@codemirror/lang-javascript").then((m) => m.javascript({ typescript: true })),
  },
  tsx: {
    name: "TSX",
    load: () => import("@codemirror/lang-javascript").then((m) => m.javascript({ jsx: true, typescript: true })),
  },
  html: { name: "HTML", load: () => import("@codemirror/lang-html").then((m) => m.html()) },
  css: { name: "CSS", load: () => import("@codemirror/lang-css").then((m) => m.css()) },
  python: { name: "Python", load: () => import("@codemirror/lang-python").then((m) => m.python()) },
  json: { name: "JSON", load: () => import("@codemirror/lang-json").then((m) => m.json()) },
  markdown: { name: "Markdown", load: () => import("@codemirror/lang-markdown").then((m) => m.markdown()) },
  csv: { name: "CSV", load: () => import("./csv").then((m) => m.csv()) },
  tsv: { name: "TSV", load: () => import("./csv").then((m) => m.tsv()) },
};

const ALIASES: Record<string, string> = {
  js: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  ts: "typescript",
  mts: "typescript",
  cts: "typescript",
  htm: "html",
  xhtml: "html",
  svg: "html",
  py: "python",
  pyw: "python",
  pyi: "python",
  md: "markdown",
  jsonl: "json",
  geojson: "json",
  ipynb: "json",
};

function resolve(key: string): Lang | null {
  const k = key.toLowerCase();
  return LANGS[k] ?? LANGS[ALIASES[k] ?? ""] ?? null;
}

export function extensionOf(path: string): string {
  const name = path.split("/").pop() ?? "";
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(dot + 1) : "";
}

/**
 * The language of a code view: an explicit `language`, or with `auto` (or
 * none) the file's extension. Null: plain text (shell and the like).
 */
export function languageFor(language: string | null, path: string | null): Lang | null {
  if (language !== null && language !== "" && language !== "auto") return resolve(language);
  return path === null ? null : resolve(extensionOf(path));
}
