//! The bundled example toolsets, run as a new user would.

use anyhow::{Context as _, Result, ensure};
use serde_json::json;

use crate::{Env, failed, succeeded};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn csv_report_charts_a_column_as_a_png_the_image_renderer_shows() -> Result<()> {
    let env = Env::new().await?;
    env.app.toolsets().install_examples().await?;
    let chat = env.chat().await?;
    succeeded(&env.run(&chat, "csv-report:make_sample", json!({})).await?)?;

    let call = env
        .run(
            &chat,
            "csv-report:chart_column",
            json!({"path": "sales.csv", "column": "units"}),
        )
        .await?;
    assert_eq!(succeeded(&call)?["bars"], 6);
    let plan = call.render_plan.as_ref().context("plan")?;
    assert_eq!(plan.renderer, "image");
    assert_eq!(plan.config["file"], "sales-units.png");
    assert_eq!(plan.config["alt"], "units by row of sales.csv (max 160)");

    // What the app's image URL pins and serves: that version of the PNG.
    let pinned = env
        .app
        .tools()
        .file_ref(&chat, "sales-units.png", plan.manifest_id.as_deref())
        .await?;
    assert_eq!(Some(pinned.manifest_id.as_str()), plan.manifest_id.as_deref());
    let png = env
        .app
        .workspace()
        .read_file(&chat, &pinned.path, Some(&pinned.manifest_id))
        .await?;
    ensure!(
        png.starts_with(b"\x89PNG\r\n\x1a\n"),
        "not a PNG: {:?}",
        &png[..8.min(png.len())]
    );
    assert_eq!(&png[16..24], &[0, 0, 1, 224, 0, 0, 0, 240], "480×240");

    let bad = env
        .run(
            &chat,
            "csv-report:chart_column",
            json!({"path": "sales.csv", "column": "region"}),
        )
        .await?;
    assert!(failed(&bad, "exception")?.contains("column 'region' of sales.csv is not numeric"));
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn csv_report_reads_its_settings_a_person_changed() -> Result<()> {
    let env = Env::new().await?;
    env.app.toolsets().install_examples().await?;
    let chat = env.chat().await?;
    let semi = "month;units\n2026-01;1\n2026-02;2\n2026-03;2\n";
    std::fs::write(env.app.workspace_dir(&chat).join("semi.csv"), semi)?;
    let mean = |call: &atelier_core::tools::ToolCallRecord| -> Result<serde_json::Value> {
        Ok(succeeded(call)?["columns"][1]["mean"].clone())
    };
    // The defaults: commas, four decimals — this file is one column.
    let call = env
        .run(&chat, "csv-report:analyze_csv", json!({"path": "semi.csv"}))
        .await?;
    ensure!(
        succeeded(&call)?["columns"].as_array().map(Vec::len) == Some(1),
        "{:?}",
        call.result
    );

    let settings = json!({"delimiter": ";", "decimals": "1"});
    let form = env
        .app
        .toolsets()
        .set_config(
            "csv-report",
            settings.as_object().context("object")?,
            &Default::default(),
            &[],
        )
        .await?;
    ensure!(form.fields.iter().all(|f| f.is_set), "{form:?}");
    let call = env
        .run(&chat, "csv-report:analyze_csv", json!({"path": "semi.csv"}))
        .await?;
    ensure!(mean(&call)? == json!(1.7), "{:?}", call.result);
    ensure!(
        call.args == json!({"path": "semi.csv"}),
        "settings are no arguments: {}",
        call.args
    );
    Ok(())
}

/// `atelier toolset init`'s scaffold works in a new chat as it comes: its
/// tool counts a text given as an argument, and a file it cannot find is
/// said plainly, with the files the workspace does have.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_scaffold_works_in_a_new_chat_out_of_the_box() -> Result<()> {
    use atelier_core::toolsets::ImportOptions;
    let env = Env::new().await?;
    let dir = env.tmp.path().join("fresh");
    atelier_core::toolsets::examples::init(&dir, "fresh")?;
    env.app.toolsets().import(&dir, &ImportOptions::default()).await?;
    let chat = env.chat().await?;
    let call = env
        .run(&chat, "fresh:word_count", json!({"text": "the cat and the hat"}))
        .await?;
    let out = succeeded(&call)?;
    assert_eq!(out["words"], 5);
    assert_eq!(out["top"][0], json!({"word": "the", "count": 2}));
    assert_eq!(
        env.file_at(&chat, "words.txt", None).await?.lines().next(),
        Some("the\t2")
    );
    assert_eq!(call.render_plan.as_ref().context("plan")?.renderer, "html");

    let missing = env.run(&chat, "fresh:word_count", json!({"path": "README.md"})).await?;
    let said = failed(&missing, "exception")?;
    ensure!(
        said.contains("README.md is not a file in the workspace (it has: words.txt); give `text` instead"),
        "{said}"
    );
    let nothing = env.run(&chat, "fresh:word_count", json!({})).await?;
    ensure!(failed(&nothing, "exception")?.contains("give `text`"));
    Ok(())
}
