//! The app's log file: started on the data dir the app opens, where the
//! UI's errors arrive through `log_ui_error`, and shown by `log_location`.

use crate::common::{harness, invoke};
use atelier_core::DataDir;
use serde_json::json;

#[test]
fn a_ui_error_reaches_the_log_file_that_settings_names() {
    let h = harness();
    let data = DataDir::new(h.tmp.path().join("data"));
    // No log yet: the folder is said to be missing, nothing is opened.
    let missing = invoke(&h, "open_log_folder", json!({})).expect_err("no folder yet");
    assert!(missing.to_string().contains("does not exist"), "{missing}");

    atelier_app::logs::init(Some(&data));
    let shown = invoke(&h, "log_location", json!({})).expect("log_location");
    let file = data.log_path();
    assert_eq!(shown["file"], json!(file.display().to_string()));
    assert_eq!(shown["folder"], json!(data.logs_dir().display().to_string()));
    assert_eq!(shown["written"], json!(true));

    let long = "x".repeat(10_000);
    invoke(
        &h,
        "log_ui_error",
        json!({
            "message": format!("the total is not a number\nERROR forged line {long}"),
            "context": "the view \"Settings: agents\"",
            "stack": "Error: the total\n    at Fragile (Totals.tsx:3:9)",
        }),
    )
    .expect("log_ui_error");
    let text = std::fs::read_to_string(&file).expect("the log file");
    let line = text
        .lines()
        .find(|l| l.contains("the total is not a number"))
        .unwrap_or_else(|| panic!("no line of the UI's error in {text:?}"));
    assert!(line.contains("ERROR") && line.contains(" ui:"), "{line}");
    assert!(
        line.contains("Settings: agents") && line.contains("at Fragile"),
        "{line}"
    );
    // One line (a page cannot forge the app's own), cut to a few KiB.
    assert!(line.contains("\\nERROR forged line"), "{line}");
    assert!(line.len() < 10_000 && line.contains("more bytes)"), "{}", line.len());
}
