//! Run commands confined by cordon: a safe API over libcordon
//! (`include/cordon.h`), in the standard library only.
//!
//! ```no_run
//! use cordon::{Builder, Command, Mode, Network, Stdio};
//!
//! # fn main() -> cordon::Result<()> {
//! let run = Builder::new()
//!     .workspace("/home/me/project")
//!     .mode(Mode::Required)
//!     .network(Network::Off)
//!     .begin()?;
//! let out = run.output(&Command::new("make").arg("test"))?;
//! println!("exit {}: {}", out.status.code(), String::from_utf8_lossy(&out.stdout));
//! let report = run.end()?;
//! println!("gaps: {:?}", report.start.map(|s| s.gaps));
//! # Ok(()) }
//! ```
//!
//! The life cycle is the library's: a [`Builder`] records the options
//! (nothing touches the kernel), [`Builder::begin`] starts the run, any
//! number of [`Run::spawn`]s from any threads, then [`Run::end`] (or
//! dropping the [`Run`]) ends it: every command still running is killed,
//! the guards look at what the run left, its temp dir is removed and the
//! exit event written.
//!
//! Threads: [`Builder`] is `Send` (a handle may be set up in one thread
//! and begun in another) but not `Sync`. [`Run`] is `Send` and `Sync`:
//! the library lets spawns come from any thread at once, and this crate
//! serialises what it does not (a getter of the decision while the run's
//! first spawn may still change it). [`Child`] is `Send` and `Sync`
//! (signalling from one thread while another holds it is the library's
//! `killpg`); it borrows its [`Run`], so no command outlives the run's
//! handle, and `Run::end` cannot race a spawn.
use std::ffi::CString;

use crate::raw::{static_list, static_str};
use cordon_sys as sys;

mod builder;
mod error;
pub mod events;
pub mod json;
mod process;
mod raw;
mod run;

pub use builder::{Builder, Probe};
pub use process::{Child, Command, ExitStatus, Output, Stdio};
pub use run::{Report, Run};

pub use error::{Error, ErrorCode, Result};
pub use events::{
    Cache, Event, ExitEvent, NetworkConnect, NetworkCounts, PossibleRefusal, Protected, ReadDenied,
    StatusEvent, Tampered,
};

/// Signal numbers for [`Child::kill`] (the same on Linux and macOS).
pub const SIGTERM: i32 = 15;
pub const SIGKILL: i32 = 9;

/// `--sandbox`: what happens when confinement cannot be applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    /// Confine when possible, else warn and run unconfined.
    Auto,
    /// Confine or refuse to run ([`ErrorCode::Unavailable`]).
    Required,
    /// Run as a plain exec would.
    Off,
}

impl Mode {
    /// The identifier of the events (`auto`, `required`, `off`).
    pub fn identifier(self) -> &'static str {
        match self {
            Mode::Auto => "auto",
            Mode::Required => "required",
            Mode::Off => "off",
        }
    }
    pub fn from_identifier(s: &str) -> Option<Mode> {
        match s {
            "auto" => Some(Mode::Auto),
            "required" => Some(Mode::Required),
            "off" => Some(Mode::Off),
            _ => None,
        }
    }
}

/// `--network on|off` (an allow-list: [`Builder::network_allow`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Network {
    On,
    Off,
}

/// `--on-tamper`: how a run that planted git or agent files ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OnTamper {
    /// Moved aside and reported; [`Run::end`] succeeds.
    Neutralise,
    /// Moved aside and reported; [`Run::end`] fails ([`ErrorCode::Tampered`]).
    Fail,
}

/// `--explain`: what a confined command that failed adds on fd 2.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Explain {
    Short,
    Full,
}

/// The library's version string.
pub fn version() -> &'static str {
    unsafe { static_str(sys::cordon_version()) }.unwrap_or("")
}

/// Every fixed identifier cordon writes (event names, modes, backends,
/// reasons, layers, gaps, cache names...): a caller's secret redaction
/// may leave these alone.
pub fn identifiers() -> Vec<&'static str> {
    unsafe { static_list(sys::cordon_identifiers()) }
}

/// The named profiles ([`Builder::profile`]).
pub fn profile_names() -> Vec<&'static str> {
    unsafe { static_list(sys::cordon_profile_names()) }
}

/// A profile's text in the policy file format.
pub fn profile_text(name: &str) -> Option<&'static str> {
    let name = CString::new(name).ok()?;
    unsafe { static_str(sys::cordon_profile_text(name.as_ptr())) }
}

/// The default deny-read list, as `~/...` paths.
pub fn default_deny_read() -> Vec<&'static str> {
    unsafe { static_list(sys::cordon_default_deny_read()) }
}

/// The environment names kept from the command by default (patterns).
pub fn default_deny_env() -> Vec<&'static str> {
    unsafe { static_list(sys::cordon_default_deny_env()) }
}

/// A one-line English explanation of a reason identifier.
pub fn reason_text(reason: &str) -> Option<&'static str> {
    let reason = CString::new(reason).ok()?;
    unsafe { static_str(sys::cordon_reason_text(reason.as_ptr())) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn send<T: Send>() {}
    fn sync<T: Sync>() {}

    #[test]
    fn thread_markers() {
        send::<Builder>();
        send::<Run>();
        sync::<Run>();
        send::<Child<'static>>();
        sync::<Child<'static>>();
        send::<Report>();
        send::<Error>();
    }

    #[test]
    fn identifiers_and_profiles() {
        let ids = identifiers();
        assert!(ids.contains(&"bash_sandbox_status"));
        assert!(ids.contains(&"bash_sandbox_unavailable"));
        assert!(profile_names().contains(&"agent"));
        assert!(profile_text("agent").unwrap().contains("network"));
        assert_eq!(profile_text("no-such-profile"), None);
        assert_eq!(version(), cordon_sys::CORDON_VERSION);
        assert!(reason_text("landlock_disabled").is_some());
    }
}
