//! `zonedb claims --small FILE [--paper FILE] [--page PAGE]`: a study's claims table (claim,
//! paper, ours and verdict at 1/64 and at the paper's size), rendered from the JSON
//! `zonedb reproduce NAME --claims --json` wrote; printed, or spliced into a results page
//! between its claims markers.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use zonedb_harness::reproduce::claims;

use super::CliError;

#[derive(Debug, Args)]
pub struct ClaimsArgs {
    /// The study's JSON at 1/64 (`reproduce-NAME.json` of a `--scale small` run).
    #[arg(long)]
    small: Option<PathBuf>,
    /// The study's JSON at the paper's size (`--scale paper`).
    #[arg(long)]
    paper: Option<PathBuf>,
    /// A results page to update in place: the table goes between its claims markers.
    #[arg(long)]
    page: Option<PathBuf>,
    /// First set each claim's verdict in the JSON files to what the current rules give its
    /// numbers (a verdict is a function of `paper`, `rule` and `ours`), rewriting the files.
    #[arg(long)]
    rejudge: bool,
}

fn read_json(p: &Path) -> Result<serde_json::Value, CliError> {
    let text = std::fs::read_to_string(p).map_err(CliError::io(p))?;
    let j: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| CliError::Usage(format!("{}: {e}", p.display())))?;
    if j.get("claims").is_none_or(|c| !c.is_array()) {
        return Err(CliError::Usage(format!(
            "{}: no `claims` list (a `zonedb reproduce NAME --json` report holds one)",
            p.display()
        )));
    }
    Ok(j)
}

/// Renders the table; prints it, or writes it into `--page`.
///
/// # Errors
/// Unreadable or claim-less JSON, neither file given, a page without the markers.
pub fn run(a: &ClaimsArgs) -> Result<ExitCode, CliError> {
    if a.small.is_none() && a.paper.is_none() {
        return Err(CliError::Usage(
            "give --small FILE, --paper FILE or both".into(),
        ));
    }
    let mut small = a.small.as_deref().map(read_json).transpose()?;
    let mut paper = a.paper.as_deref().map(read_json).transpose()?;
    if a.rejudge {
        for (path, j) in [(&a.small, &mut small), (&a.paper, &mut paper)] {
            if let (Some(path), Some(j)) = (path, j.as_mut())
                && claims::rejudge(j) > 0
            {
                let text = serde_json::to_string_pretty(j)?;
                zonedb_harness::output::write(path, text)
                    .map_err(|e| CliError::Usage(format!("{}: {e}", path.display())))?;
            }
        }
    }
    let table = claims::table(small.as_ref(), paper.as_ref());
    let Some(page) = &a.page else {
        print!("{table}");
        return Ok(ExitCode::SUCCESS);
    };
    let text = std::fs::read_to_string(page).map_err(CliError::io(page))?;
    let new = claims::splice(&text, &table).ok_or_else(|| {
        CliError::Usage(format!(
            "{}: no claims markers (`{}` ... `{}`)",
            page.display(),
            claims::BEGIN,
            claims::END
        ))
    })?;
    zonedb_harness::output::write(page, new)
        .map_err(|e| CliError::Usage(format!("{}: {e}", page.display())))?;
    Ok(ExitCode::SUCCESS)
}
