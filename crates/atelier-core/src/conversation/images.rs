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
use crate::model::{ContentPart, Message};
use crate::{Atelier, Error, Result};

/// The most bytes of one image sent (Anthropic's limit; OpenAI's is higher).
pub const MAX_IMAGE_BYTES: u64 = 5 * 1024 * 1024;

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
    /// By `<message id>/<path>` for a person's images, by call id for a tool's.
    pub by_key: HashMap<String, Loaded>,
}

impl Images {
    pub(crate) fn of_message(&self, message_id: &str, path: &str) -> Option<&Loaded> {
        self.by_key.get(&format!("{message_id}/{path}"))
    }

    pub(crate) fn of_call(&self, call_id: &str) -> Option<&Loaded> {
        self.by_key.get(call_id)
    }
}

fn encode(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// The image a tool's call returned, if its render plan shows one: where
/// it is (a workspace path at the call's state) or the image itself.
fn tool_image(plan: &Value) -> Option<std::result::Result<String, (String, String)>> {
    if plan.get("renderer").and_then(Value::as_str) != Some("image") {
        return None;
    }
    let config = plan.get("config")?;
    if let Some(url) = config.get("url").and_then(Value::as_str) {
        let rest = url.strip_prefix("data:")?;
        let (media_type, data) = rest.split_once(";base64,")?;
        return Some(Err((media_type.to_owned(), data.to_owned())));
    }
    config.get("file").and_then(Value::as_str).map(|f| Ok(f.to_owned()))
}

impl Atelier {
    /// Reads one workspace image for a request.
    async fn load_image(&self, chat_id: &str, path: &str, at: &str) -> Loaded {
        let Some(media_type) = media_type(path) else {
            return Err(format!("{path} is not a PNG, JPEG, GIF or WebP image"));
        };
        match self.workspace().read_file(chat_id, path, Some(at)).await {
            Ok(bytes) if bytes.len() as u64 > MAX_IMAGE_BYTES => Err(format!(
                "{path} is {} MB; images up to {} MB are sent",
                bytes.len() / (1024 * 1024),
                MAX_IMAGE_BYTES / (1024 * 1024)
            )),
            Ok(bytes) => Ok((media_type.to_owned(), encode(&bytes))),
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
            by_key: HashMap::new(),
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
            let Some(found) = row.render_plan.as_ref().and_then(tool_image) else {
                continue;
            };
            let loaded = match (found, send) {
                (_, false) => Err(String::new()),
                (Err((media_type, data)), true) => Ok((media_type, data)),
                (Ok(path), true) => match &row.post_manifest_id {
                    Some(at) => self.load_image(chat_id, &path, at).await,
                    None => Err(format!("{path}: the call left no workspace state")),
                },
            };
            images.by_key.insert(row.id.clone(), loaded);
        }
        Ok(images)
    }
}

/// Checks a file a person attaches: an image type models take, not too big.
pub fn check_attachment(path: &std::path::Path) -> Result<()> {
    let name = path.display().to_string();
    if media_type(&name).is_none() {
        return Err(Error::InvalidData {
            what: "image",
            reason: format!("{name}: models take PNG, JPEG, GIF and WebP images"),
        });
    }
    let size = std::fs::metadata(path).map_err(Error::io("read", path))?.len();
    if size > MAX_IMAGE_BYTES {
        return Err(Error::InvalidData {
            what: "image",
            reason: format!(
                "{name} is {} MB; images up to {} MB are sent to models",
                size / (1024 * 1024),
                MAX_IMAGE_BYTES / (1024 * 1024)
            ),
        });
    }
    Ok(())
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
        if bytes.len() as u64 > MAX_IMAGE_BYTES {
            return Err(Error::InvalidData {
                what: "pasted image",
                reason: format!(
                    "it is {} MB; images up to {} MB are sent to models",
                    bytes.len() / (1024 * 1024),
                    MAX_IMAGE_BYTES / (1024 * 1024)
                ),
            });
        }
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
        assert_eq!(tool_image(&file), Some(Ok("plots/a.png".to_owned())));
        let data = json!({"renderer": "image", "config": {"url": "data:image/png;base64,iVBO"}});
        assert_eq!(
            tool_image(&data),
            Some(Err(("image/png".to_owned(), "iVBO".to_owned())))
        );
        assert_eq!(
            tool_image(&json!({"renderer": "code", "config": {"file": "a.png"}})),
            None
        );
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
}
