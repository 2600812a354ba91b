//! Images for models: those a person sends with a message (files of the
//! workspace at that message's state) and those a tool returns (an image
//! renderer's workspace file or `data:` image). They are read when a
//! request is built — never copied into the message — and go to a model
//! that takes images; another gets a short note saying an image was left
//! out. Whether a model takes images is the `images` model setting, else
//! judged by its name.

use std::collections::HashMap;

use base64::Engine as _;
use serde_json::Value;

use super::context::CallRow;
use atelier_llm::Part;

use crate::model::{ContentPart, Message};
use crate::{Atelier, Error, Result};

/// The most bytes of one image sent. Anthropic refuses an image whose
/// base64 is over 5 MiB ("image exceeds 5 MB maximum") — and with it the
/// whole request —, so three quarters of that in bytes; OpenAI's is higher.
pub const MAX_IMAGE_BYTES: u64 = 5 * 1024 * 1024 / 4 * 3;

/// [`MAX_IMAGE_BYTES`] in words.
const MAX_IMAGE_WORDS: &str = "3.75 MiB";

/// The media types of images every provider takes.
const TAKEN: [&str; 4] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

/// The media type of an image file models take, by its name.
pub fn media_type(path: &str) -> Option<&'static str> {
    let ext = path.rsplit_once('.')?.1.to_ascii_lowercase();
    Some(match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        _ => return None,
    })
}

/// Whether an image (`what`, said in the answer) of `media_type` and
/// `bytes` can go to a model, else why not. One check for a person's
/// images and a tool's: a provider refuses the whole request for one
/// image it does not take, and every later turn of the branch with it.
pub(crate) fn check_image(what: &str, media_type: &str, bytes: u64) -> std::result::Result<(), String> {
    if !TAKEN.contains(&media_type) {
        return Err(format!(
            "{what} is {media_type}, not a PNG, JPEG, GIF or WebP image, which models take"
        ));
    }
    if bytes > MAX_IMAGE_BYTES {
        return Err(format!(
            "{what} is {}; images up to {MAX_IMAGE_WORDS} are sent to models",
            crate::toolsets::bundle::human_bytes(bytes)
        ));
    }
    Ok(())
}

/// Whether a model takes images, judged by its name (families known to).
pub fn takes_images_by_name(model: &str) -> bool {
    let m = model.to_ascii_lowercase();
    let m = m.rsplit('/').next().unwrap_or(&m);
    ["claude", "gpt-4o", "gpt-4.1", "gpt-5", "o3", "o4", "gemini"]
        .iter()
        .any(|p| m.starts_with(p))
        || [
            "vision",
            "-vl",
            "vl-",
            "llava",
            "gemma3",
            "pixtral",
            "minicpm-v",
            "moondream",
            "qwen2.5vl",
        ]
        .iter()
        .any(|p| m.contains(p))
}

/// An image ready for a request, or why it is not sent.
pub(crate) type Loaded = std::result::Result<(String, String), String>;

/// The images of a branch, loaded.
#[derive(Debug, Default)]
pub(crate) struct Images {
    /// Whether the model takes them.
    pub send: bool,
    /// By `<message id>/<path>`: a person's images.
    pub by_key: HashMap<String, Loaded>,
    /// By call id: every image a tool's call returned, in order.
    pub by_call: HashMap<String, Vec<Loaded>>,
}

impl Images {
    pub(crate) fn of_message(&self, message_id: &str, path: &str) -> Option<&Loaded> {
        self.by_key.get(&format!("{message_id}/{path}"))
    }

    pub(crate) fn of_call(&self, call_id: &str) -> &[Loaded] {
        self.by_call.get(call_id).map_or(&[], Vec::as_slice)
    }

    /// The images a call returned, as parts to follow its result. One left
    /// out is said at the end of the result itself — a text part of its own
    /// would sit between two results, which Anthropic refuses —, with why:
    /// the model knows what it did not see.
    pub(crate) fn after_result(&self, call_id: &str, result: &mut String) -> Vec<Part> {
        let loaded = self.of_call(call_id);
        if loaded.is_empty() {
            return Vec::new();
        }
        if !self.send {
            let n = loaded.len();
            let what = if n == 1 {
                "an image".to_owned()
            } else {
                format!("{n} images")
            };
            result.push_str(&format!(
                "\n\n(The call returned {what}, left out: this model does not take images.)"
            ));
            return Vec::new();
        }
        let mut parts = Vec::new();
        for l in loaded {
            match l {
                Ok((media_type, data)) => parts.push(Part::Image {
                    media_type: media_type.clone(),
                    data: data.clone(),
                }),
                Err(why) => result.push_str(&format!("\n\n(An image the call returned was not sent: {why}.)")),
            }
        }
        parts
    }
}

fn encode(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// An image a tool's call returned: a workspace path (at the call's
/// state) or the image itself.
#[derive(Debug, PartialEq)]
enum Found {
    File(String),
    Data { media_type: String, data: String },
}

/// The images a call's render plan shows, in order: an image plan's, or
/// each image block of a `blocks` plan (MCP content of several blocks).
fn tool_images(plan: &Value) -> Vec<Found> {
    let one = |p: &Value| -> Option<Found> {
        if p.get("renderer").and_then(Value::as_str) != Some("image") {
            return None;
        }
        let config = p.get("config")?;
        if let Some(url) = config.get("url").and_then(Value::as_str) {
            let (head, data) = url.strip_prefix("data:")?.split_once(";base64,")?;
            // `data:image/png;name=a.png;base64,…`: the type is the first field.
            let media_type = head.split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
            return Some(Found::Data {
                media_type,
                data: data.to_owned(),
            });
        }
        config
            .get("file")
            .and_then(Value::as_str)
            .map(|f| Found::File(f.to_owned()))
    };
    match plan.get("renderer").and_then(Value::as_str) {
        Some("blocks") => plan
            .pointer("/config/blocks")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(one)
            .collect(),
        _ => one(plan).into_iter().collect(),
    }
}

impl Atelier {
    /// Reads one workspace image for a request.
    async fn load_image(&self, chat_id: &str, path: &str, at: &str) -> Loaded {
        let Some(media_type) = media_type(path) else {
            return Err(format!("{path} is not a PNG, JPEG, GIF or WebP image"));
        };
        match self.workspace().read_file(chat_id, path, Some(at)).await {
            Ok(bytes) => {
                check_image(path, media_type, bytes.len() as u64)?;
                Ok((media_type.to_owned(), encode(&bytes)))
            }
            Err(e) => Err(format!("{path} could not be read: {e}")),
        }
    }

    /// The images of `branch` (and of its calls' results), loaded when
    /// `send`, else only named.
    pub(crate) async fn branch_images(
        &self,
        chat_id: &str,
        branch: &[Message],
        calls: &HashMap<String, CallRow>,
        send: bool,
    ) -> Result<Images> {
        let mut images = Images {
            send,
            ..Images::default()
        };
        for m in branch {
            for p in &m.content {
                if let ContentPart::Image { path, .. } = p {
                    let loaded = if send {
                        self.load_image(chat_id, path, &m.id).await
                    } else {
                        Err(String::new())
                    };
                    images.by_key.insert(format!("{}/{path}", m.id), loaded);
                }
            }
        }
        for row in calls.values() {
            let found = row.render_plan.as_ref().map(tool_images).unwrap_or_default();
            let mut loaded = Vec::new();
            for f in found {
                loaded.push(match (f, send) {
                    (_, false) => Err(String::new()),
                    (Found::Data { media_type, data }, true) => check_image(
                        "an image the tool returned",
                        &media_type,
                        crate::mcp::content::decoded_len(&data),
                    )
                    .map(|()| (media_type, data)),
                    (Found::File(path), true) => match &row.post_manifest_id {
                        Some(at) => self.load_image(chat_id, &path, at).await,
                        None => Err(format!("{path}: the call left no workspace state")),
                    },
                });
            }
            if !loaded.is_empty() {
                images.by_call.insert(row.id.clone(), loaded);
            }
        }
        Ok(images)
    }
}

/// Checks a file a person attaches: an image type models take, not too big.
pub fn check_attachment(path: &std::path::Path) -> Result<()> {
    let name = path.display().to_string();
    let Some(media_type) = media_type(&name) else {
        return Err(Error::InvalidData {
            what: "image",
            reason: format!("{name}: models take PNG, JPEG, GIF and WebP images"),
        });
    };
    let size = std::fs::metadata(path).map_err(Error::io("read", path))?.len();
    check_image(&name, media_type, size).map_err(|reason| Error::InvalidData { what: "image", reason })
}

/// Whether `bytes` begin as an image of `media_type` does; the extension
/// its file gets, or `None`.
fn sniff(bytes: &[u8], media_type: &str) -> Option<&'static str> {
    let is = |magic: &[u8]| bytes.starts_with(magic);
    match media_type {
        "image/png" if is(b"\x89PNG\r\n\x1a\n") => Some("png"),
        "image/jpeg" if is(b"\xff\xd8\xff") => Some("jpg"),
        "image/gif" if is(b"GIF87a") || is(b"GIF89a") => Some("gif"),
        "image/webp" if is(b"RIFF") && bytes.get(8..12) == Some(b"WEBP") => Some("webp"),
        _ => None,
    }
}

/// How long a pasted image no message took stays in `pasted/`.
const PASTED_KEPT: std::time::Duration = std::time::Duration::from_secs(24 * 3600);

impl Atelier {
    /// Keeps an image a person pasted (bytes with no file, as a webview's
    /// clipboard gives them, in base64) as a file a message can attach:
    /// `<data>/pasted/pasted-<time>.<ext>`, named so the workspace file it
    /// becomes says what it is. The bytes must be an image of `media_type`
    /// that models take, within [`MAX_IMAGE_BYTES`]. Pasted files older
    /// than a day go at the same time.
    pub async fn stage_pasted_image(&self, base64_data: &str, media_type: &str) -> Result<std::path::PathBuf> {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(base64_data.trim())
            .map_err(|e| Error::InvalidData {
                what: "pasted image",
                reason: format!("its data is not base64: {e}"),
            })?;
        // The type is judged from the bytes below.
        check_image("it", "image/png", bytes.len() as u64).map_err(|reason| Error::InvalidData {
            what: "pasted image",
            reason,
        })?;
        let ext = sniff(&bytes, media_type).ok_or_else(|| Error::InvalidData {
            what: "pasted image",
            reason: format!("it is not a PNG, JPEG, GIF or WebP image (the clipboard said {media_type})"),
        })?;
        let dir = self.data_dir().pasted_dir();
        let stamp = time::OffsetDateTime::now_utc();
        let base = format!(
            "pasted-{:04}-{:02}-{:02}-{:02}{:02}{:02}",
            stamp.year(),
            u8::from(stamp.month()),
            stamp.day(),
            stamp.hour(),
            stamp.minute(),
            stamp.second()
        );
        crate::blocking(move || {
            std::fs::create_dir_all(&dir).map_err(Error::io("create", &dir))?;
            forget_old(&dir);
            for n in 1..=1000 {
                let name = if n == 1 {
                    format!("{base}.{ext}")
                } else {
                    format!("{base}-{n}.{ext}")
                };
                let path = dir.join(name);
                match std::fs::OpenOptions::new().write(true).create_new(true).open(&path) {
                    Ok(mut f) => {
                        std::io::Write::write_all(&mut f, &bytes).map_err(Error::io("write", &path))?;
                        return Ok(path);
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                    Err(e) => return Err(Error::io("create", &path)(e)),
                }
            }
            Err(Error::Conflict(format!(
                "{}: a thousand images were pasted within one second",
                dir.display()
            )))
        })
        .await
    }
}

/// Removes pasted images no message took within [`PASTED_KEPT`]; a file
/// that cannot be read or removed is left (it is only clutter).
fn forget_old(dir: &std::path::Path) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let old = e
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > PASTED_KEPT);
        if old {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_image_renderers_file_or_data_url_is_the_calls_image() {
        let file = json!({"renderer": "image", "config": {"file": "plots/a.png"}});
        assert_eq!(tool_images(&file), vec![Found::File("plots/a.png".to_owned())]);
        let data = json!({"renderer": "image", "config": {"url": "data:image/png;base64,iVBO"}});
        let png = || Found::Data {
            media_type: "image/png".to_owned(),
            data: "iVBO".to_owned(),
        };
        assert_eq!(tool_images(&data), vec![png()]);
        assert_eq!(
            tool_images(&json!({"renderer": "code", "config": {"file": "a.png"}})),
            vec![]
        );
        // Every image of several blocks, a repeated one too, in order.
        let blocks = json!({"renderer": "blocks", "config": {"blocks": [
            {"renderer": "document", "config": {"content": "two charts"}},
            data, data,
            {"renderer": "image", "config": {"url": "data:image/svg+xml;base64,PHN2Zy8+"}},
        ]}});
        let svg = Found::Data {
            media_type: "image/svg+xml".to_owned(),
            data: "PHN2Zy8+".to_owned(),
        };
        assert_eq!(tool_images(&blocks), vec![png(), png(), svg]);
    }

    #[test]
    fn an_image_models_refuse_is_said_why_by_type_or_size() {
        assert_eq!(check_image("a.png", "image/png", 1000), Ok(()));
        let svg = check_image("an image the tool returned", "image/svg+xml", 100).expect_err("svg");
        assert!(svg.contains("is image/svg+xml, not a PNG, JPEG, GIF or WebP"), "{svg}");
        // Anthropic counts the base64: 4 MiB of bytes is 5.3 MiB of it.
        let big = check_image("a.png", "image/png", 4 * 1024 * 1024).expect_err("too big");
        assert!(big.contains("is 4 MiB; images up to 3.75 MiB"), "{big}");
        assert_eq!(check_image("a.png", "image/png", MAX_IMAGE_BYTES), Ok(()));
        assert!(MAX_IMAGE_BYTES.div_ceil(3) * 4 <= 5 * 1024 * 1024);
        assert_eq!(crate::mcp::content::decoded_len("iVBORw0KGgo="), 8);
    }

    #[test]
    fn a_pasted_image_must_be_what_the_clipboard_says() {
        assert_eq!(sniff(b"\x89PNG\r\n\x1a\n\0\0", "image/png"), Some("png"));
        assert_eq!(sniff(b"\xff\xd8\xff\xe0", "image/jpeg"), Some("jpg"));
        assert_eq!(sniff(b"GIF89a..", "image/gif"), Some("gif"));
        assert_eq!(sniff(b"RIFF\0\0\0\0WEBPVP8 ", "image/webp"), Some("webp"));
        // A PNG said to be a JPEG, text said to be a PNG, a type models do not take.
        assert_eq!(sniff(b"\x89PNG\r\n\x1a\n", "image/jpeg"), None);
        assert_eq!(sniff(b"<svg></svg>", "image/png"), None);
        assert_eq!(sniff(b"<svg></svg>", "image/svg+xml"), None);
    }

    #[test]
    fn models_are_judged_by_name_and_files_by_extension() {
        assert!(takes_images_by_name("claude-sonnet-4-5") && takes_images_by_name("openai/gpt-4o-mini"));
        assert!(takes_images_by_name("llava:7b") && takes_images_by_name("qwen2.5-vl-7b"));
        assert!(!takes_images_by_name("qwen2.5:0.5b") && !takes_images_by_name("tiny"));
        assert_eq!(media_type("a/B.JPG"), Some("image/jpeg"));
        assert_eq!(media_type("notes.txt"), None);
    }

    #[test]
    fn a_calls_images_follow_its_result_and_one_left_out_is_said_in_it() {
        let mut images = Images {
            send: true,
            ..Images::default()
        };
        images.by_call.insert(
            "c1".into(),
            vec![
                Ok(("image/png".into(), "iVBO".into())),
                Err("an image the tool returned is image/svg+xml, not a PNG, JPEG, GIF or WebP image".into()),
                Ok(("image/png".into(), "iVBO".into())),
            ],
        );
        let mut text = "two charts".to_owned();
        let parts = images.after_result("c1", &mut text);
        assert_eq!(parts.len(), 2, "both PNGs, the same one twice");
        assert_eq!(
            text,
            "two charts\n\n(An image the call returned was not sent: an image the tool returned is image/svg+xml, not a PNG, JPEG, GIF or WebP image.)"
        );
        images.send = false;
        let mut text = String::new();
        assert!(images.after_result("c1", &mut text).is_empty());
        assert!(
            text.contains("returned 3 images, left out: this model does not take images"),
            "{text}"
        );
    }
}
