//! `atelier settings …`

use atelier_core::Atelier;

use crate::cli::SettingsCommand;
use crate::output;

pub(crate) async fn run(app: &Atelier, cmd: SettingsCommand, json: bool) -> anyhow::Result<()> {
    let settings = match cmd {
        SettingsCommand::Show => app.settings().get().await?,
        SettingsCommand::AllowFrameOrigin { origin } => app.settings().allow_frame_origin(&origin).await?,
        SettingsCommand::ForbidFrameOrigin { origin } => app.settings().forbid_frame_origin(&origin).await?,
    };
    if json {
        return output::json(&settings);
    }
    #[allow(clippy::print_stdout)]
    {
        if settings.frame_origins.is_empty() {
            println!("frame renderers show pages from this computer only (localhost, 127.0.0.1, [::1])");
        } else {
            println!("frame renderers also show pages from:");
            for o in &settings.frame_origins {
                println!("  {o}");
            }
        }
    }
    Ok(())
}
