//! The reference of the start-up benchmark: a minimal Tauri 2 window built
//! the same way as the app (same crate, config, assets and CSP) whose page
//! (`ui/public/minimal.html`) reports its first paint at once.

fn main() {
    atelier_app::startup::mark_start();
    let mut context = tauri::generate_context!();
    // The app's own window (index.html) is not part of the reference.
    context.config_mut().app.windows.clear();
    let built = tauri::Builder::default()
        .invoke_handler(tauri::generate_handler![atelier_app::startup::first_paint])
        .setup(|app| {
            tauri::WebviewWindowBuilder::new(app, "main", tauri::WebviewUrl::App("minimal.html".into()))
                .title("Minimal")
                .inner_size(1200.0, 800.0)
                .build()?;
            Ok(())
        })
        .build(context);
    match built {
        Ok(app) => app.run(|_, _| {}),
        Err(e) => {
            use std::io::Write;
            let _ = writeln!(std::io::stderr(), "minimal_window: {e}");
            std::process::exit(1);
        }
    }
}
