// The bundles the preview's Import… offers (reports for its consent step),
// and the order the file picker hands them out in.
import type { BundleReport } from "../src/bindings";

export const bundles: Record<string, BundleReport> = {
  "/home/me/Downloads/git-tools.zip": {
    id: "git-tools",
    name: "Git Tools",
    version: "0.3.1",
    description: "Status, log and reset of the repository you choose, through git and its MCP server.",
    installed_version: null,
    version_change: "new",
    valid: true,
    file_count: 9,
    total_size: 48213,
    problems: [
      { severity: "warning", path: "tools[2].x-color", line: 31, column: 5, message: "unknown key `x-color` (kept)" },
    ],
    will_run: {
      python_entrypoints: [
        { tool_id: "git-tools:status", entrypoint: "tools.git:status", requires_confirmation: false },
        { tool_id: "git-tools:log", entrypoint: "tools.git:log", requires_confirmation: false },
        { tool_id: "git-tools:reset", entrypoint: "tools.git:reset_hard", requires_confirmation: true },
      ],
      requirements: ["GitPython==3.1.43"],
      mcp_servers: [
        {
          id: "git",
          command: "uvx",
          args: ["mcp-server-git", "--repository", "."],
          url: null,
          env: [
            { name: "GITEA_TOKEN", shown: null },
            { name: "GIT_AUTHOR_EMAIL", shown: "${GIT_AUTHOR_EMAIL}" },
          ],
          headers: [],
        },
      ],
    },
    consent: {
      secret_values: [{ server_id: "git", field: "env", name: "GITEA_TOKEN" }],
      settings: {
        toolset_id: "git-tools",
        fields: [
          {
            key: "repository",
            type: "directory",
            title: "Repository",
            description: "The repository its tools read.",
            required: true,
            value: null,
            is_set: false,
          },
          {
            key: "max_commits",
            type: "number",
            title: "Commits to show",
            min: 1,
            max: 500,
            default: 50,
            value: 50,
            is_set: false,
          },
          { key: "signing_key", type: "string", title: "Signing key", sensitive: true, value: null, is_set: false },
        ],
        missing: ["repository"],
      },
      env_references: [
        {
          name: "GIT_AUTHOR_EMAIL",
          server_ids: ["git"],
          in_environment: true,
          allowed: false,
          stored: false,
          origin: null,
        },
        {
          name: "GITHUB_TOKEN",
          server_ids: ["git"],
          in_environment: false,
          allowed: false,
          stored: false,
          origin: null,
        },
      ],
      secret_store: null,
    },
    exported: [],
  },
  "/home/me/Downloads/broken.zip": {
    id: "broken",
    name: "Broken",
    version: null,
    description: "",
    installed_version: null,
    version_change: null,
    valid: false,
    file_count: 3,
    total_size: 2048,
    will_run: { python_entrypoints: [], requirements: [], mcp_servers: [] },
    consent: { secret_values: [], settings: null, env_references: [], secret_store: "keychain" },
    exported: [],
    problems: [
      { severity: "error", path: "version", line: null, column: null, message: "missing required field `version`" },
      {
        severity: "error",
        path: "tools[0].entrypoint",
        line: 9,
        column: 17,
        message: 'expected `module.path:function`, got "tools/files.py"',
      },
      {
        severity: "error",
        path: "tools[1].renderer.type",
        line: 22,
        column: 13,
        message: 'unknown renderer type "chart": use code, document, html or frame',
      },
    ],
  },
};
// An older CSV Report than the one installed: the consent step says downgrade.
bundles["/home/me/Downloads/csv-report-0.1.0.zip"] = {
  ...bundles["/home/me/Downloads/git-tools.zip"]!,
  id: "csv-report",
  name: "CSV Report",
  version: "0.1.0",
  description: "Summaries and charts of CSV files",
  problems: [],
  consent: { secret_values: [], settings: null, env_references: [], secret_store: "keychain" },
};
// Each Import… picks the next of these (the last one again and again).
export const picks = [
  "/home/me/Downloads/git-tools.zip",
  "/home/me/Downloads/broken.zip",
  "/home/me/Downloads/csv-report-0.1.0.zip",
];
