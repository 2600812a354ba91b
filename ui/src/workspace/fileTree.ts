// The workspace tree as data: a manifest's flat `{path: hash}` map folded
// into folders once, and the rows a given set of open folders shows. Pure, so
// the 10,000-file case is cheap to test and the component only draws rows.

export type FileNode = { kind: "file"; path: string; name: string; depth: number; changed: boolean };

export type FolderNode = {
  kind: "folder";
  /** "" for the root, else `a/b` without a trailing slash. */
  path: string;
  name: string;
  depth: number;
  folders: FolderNode[];
  files: FileNode[];
  /** Files anywhere below. */
  count: number;
  /** Something below was changed by the last step. */
  changed: boolean;
};

export type Tree = { root: FolderNode; folders: Map<string, FolderNode> };

export type Row = {
  node: FolderNode | FileNode;
  /** Folders only: whether its children follow. */
  open: boolean;
  /** Position among its siblings (1-based) and how many there are, for ARIA. */
  pos: number;
  size: number;
  /** The row index of the containing folder, -1 at the top level. */
  parent: number;
};

// Numeric so `file-2` sorts before `file-10`, as a file manager shows them.
const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });
const byName = (a: { name: string }, b: { name: string }) => collator.compare(a.name, b.name);

/** The folder that holds `path` ("" at the top level). */
export function parentOf(path: string): string {
  const i = path.lastIndexOf("/");
  return i < 0 ? "" : path.slice(0, i);
}

/** `a/b/c.txt` → `["a", "a/b"]`: the folders that must be open to show it. */
export function ancestorsOf(path: string): string[] {
  const out: string[] = [];
  for (let i = path.indexOf("/"); i >= 0; i = path.indexOf("/", i + 1)) out.push(path.slice(0, i));
  return out;
}

/**
 * One pass over the paths (a folder is made the first time a file needs
 * it), then counts summed bottom-up and each folder sorted once: folders
 * first, then files, by name. `changes` marks a file when its value is
 * non-null (null = removed, so not in the tree) and every folder above it.
 */
export function buildTree(files: Record<string, string>, changes: Record<string, string | null>): Tree {
  const root: FolderNode = {
    kind: "folder",
    path: "",
    name: "",
    depth: -1,
    folders: [],
    files: [],
    count: 0,
    changed: false,
  };
  const folders = new Map<string, FolderNode>([["", root]]);
  const folder = (path: string): FolderNode => {
    const known = folders.get(path);
    if (known !== undefined) return known;
    const parent = folder(parentOf(path));
    const made: FolderNode = {
      kind: "folder",
      path,
      name: path.slice(path.lastIndexOf("/") + 1),
      depth: parent.depth + 1,
      folders: [],
      files: [],
      count: 0,
      changed: false,
    };
    parent.folders.push(made);
    folders.set(path, made);
    return made;
  };
  for (const path in files) {
    const home = folder(parentOf(path));
    const changed = typeof changes[path] === "string";
    home.files.push({
      kind: "file",
      path,
      name: path.slice(path.lastIndexOf("/") + 1),
      depth: home.depth + 1,
      changed,
    });
    // Marking stops at the first folder already marked: each folder once.
    for (
      let f: FolderNode | undefined = home;
      changed && f !== undefined && !f.changed;
      f = folders.get(parentOf(f.path))
    ) {
      f.changed = true;
      if (f.path === "") break;
    }
  }
  const finish = (f: FolderNode): number => {
    f.folders.sort(byName);
    f.files.sort(byName);
    f.count = f.files.length;
    for (const sub of f.folders) f.count += finish(sub);
    return f.count;
  };
  finish(root);
  return { root, folders };
}

/** The rows shown, top to bottom, when the folders `isOpen` says are open. */
export function visibleRows(tree: Tree, isOpen: (path: string) => boolean): Row[] {
  const rows: Row[] = [];
  const walk = (f: FolderNode, parent: number) => {
    const size = f.folders.length + f.files.length;
    let pos = 0;
    for (const sub of f.folders) {
      const open = isOpen(sub.path);
      const index = rows.length;
      rows.push({ node: sub, open, pos: ++pos, size, parent });
      if (open) walk(sub, index);
    }
    for (const file of f.files) rows.push({ node: file, open: false, pos: ++pos, size, parent });
  };
  walk(tree.root, -1);
  return rows;
}
