import { defineConfig } from "vitest/config";
import react from "@vitejs/plugin-react";

// The app runs inside Tauri's webview under a CSP without 'unsafe-eval':
// nothing here may rely on eval or new Function.
export default defineConfig({
  base: "./",
  plugins: [react()],
  clearScreen: false,
  server: { port: 5173, strictPort: true },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    sourcemap: false,
  },
  test: {
    environment: "jsdom",
    globals: true,
    setupFiles: ["./test/setup.ts"],
    include: ["test/**/*.test.{ts,tsx}"],
    restoreMocks: true,
  },
});
