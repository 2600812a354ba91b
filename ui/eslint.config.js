// ESLint for the UI (TypeScript + React hooks); e2e/eslint.config.js covers the
// end-to-end scripts.
// Run by `npm run lint` in scripts/test.sh with --max-warnings 0.
import js from "@eslint/js";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/", "node_modules/", "src/bindings.ts"] },
  {
    files: ["src/**/*.{ts,tsx}", "test/**/*.{ts,tsx}", "preview/**/*.{ts,tsx}", "*.ts"],
    // The hooks plugin's recommended set: rules-of-hooks, exhaustive-deps and
    // the React Compiler's checks (refs, set-state-in-effect, purity, …).
    extends: [js.configs.recommended, ...tseslint.configs.recommended, reactHooks.configs.flat.recommended],
    languageOptions: { globals: globals.browser },
    rules: {
      // Stricter than recommended ("warn"): the lint allows no warning anyway.
      "react-hooks/exhaustive-deps": "error",
      // `_`-prefixed names are deliberately unused (ignored arguments).
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    files: ["*.js"],
    extends: [js.configs.recommended],
    languageOptions: { globals: globals.node, sourceType: "module" },
  },
);
