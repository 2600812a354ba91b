//! An `html` renderer's page gets all of its data: the plan that rides on
//! every record keeps only its first part (`shown`), and the page's
//! document resolves the renderer's `data` again against the call's whole
//! result.

use serde_json::Value;

use crate::authoring::scaffold_with;
use crate::{Env, write};

#[tokio::test]
async fn a_page_gets_all_of_a_big_result_while_the_plan_keeps_its_first_part() {
    let env = Env::new();
    let src = tempfile::tempdir().expect("src");
    let dir = scaffold_with(src.path(), "many", |y| y);
    env.ok(&["toolset", "import", dir.to_str().expect("utf-8")]);
    let chat = env.json(&["chat", "new"])["id"].as_str().expect("id").to_owned();
    // 12,000 different words: the page's `top` list is about 350 KiB of
    // JSON, past what a plan holds.
    let words: Vec<String> = (0..12_000).map(|i| format!("w{i:05}")).collect();
    write(&env.app().await.workspace_dir(&chat), "many.txt", words.join(" "));
    let args = r#"{"path": "many.txt", "top": 20000}"#;
    let call = env.json(&["run", "many:word_count", "--chat", &chat, "--args", args, "--quiet"]);
    assert_eq!(call["status"], "success", "{call}");
    let id = call["id"].as_str().expect("call id");

    let plan = env.json(&["call", "render", id]);
    let shown = plan["config"]["data"]["top"].as_array().expect("the plan's rows").len();
    assert!(
        shown > 1_000 && shown < 12_000,
        "the plan keeps the first part: {shown}"
    );
    assert_eq!(
        plan["warnings"],
        Value::Array(Vec::new()),
        "the page is not cut: {plan}"
    );

    let page = env.ok(&["call", "render", id, "--html"]);
    let data_at = page.find("window.__TOOL_DATA__ = ").expect("the data script") + 23;
    let data: Value = serde_json::Deserializer::from_str(&page[data_at..])
        .into_iter()
        .next()
        .expect("a value")
        .expect("the page's data is JSON");
    let top = data["top"].as_array().expect("the page's rows");
    assert_eq!(top.len(), 12_000, "the page gets every row");
    assert_eq!(
        (data["words"].as_i64(), top[11_999]["count"].as_i64()),
        (Some(12_000), Some(1))
    );
}
