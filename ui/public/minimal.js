// Reports the first paint, as the app does once its toolset list shows.
requestAnimationFrame(() =>
  requestAnimationFrame(() => window.__TAURI_INTERNALS__.invoke("first_paint")),
);
