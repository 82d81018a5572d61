//! The options of a run and its beginning.
use std::ffi::OsStr;
use std::os::raw::c_int;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::io::RawFd;
use std::path::Path;
use std::ptr::{self, NonNull};
use std::time::Duration;

use crate::raw::{c_string, owned_list, owned_str, taken_bytes, Handle, Owner};
use crate::{json, Error, ErrorCode, Explain, Mode, Network, OnTamper, Result, Run};
use cordon_sys as sys;

/// The options of a run, recorded by the library (nothing touches the
/// file system or the kernel before [`Builder::begin`], but
/// [`Builder::cwd`]). Each method applies at once, in order, as the
/// option of `cordon run` of the same name through the library's one
/// table (`cordon_set_option`), as a policy file's lines are: a policy
/// file's relative paths are the workspace's set before it, and a
/// single-valued option (mode, network, timeout, workspace...) given
/// again with another value is refused, so a profile or policy file
/// cannot be undone by a later call; flags only turn things on. The first
/// failure is kept and returned by `begin` (the later options are then
/// ignored).
pub struct Builder {
    h: Option<Handle>,
    error: Option<Error>,
    events: bool,
}

impl Default for Builder {
    fn default() -> Self {
        Builder::new()
    }
}

impl Builder {
    pub fn new() -> Builder {
        match NonNull::new(unsafe { sys::cordon_new() }) {
            Some(p) => Builder { h: Some(Handle(p)), error: None, events: true },
            None => Builder {
                h: None,
                error: Some(Error::new(ErrorCode::OutOfMemory, "cordon_new: out of memory")),
                events: true,
            },
        }
    }

    /// Applies one setter unless an earlier one failed.
    fn apply(mut self, f: impl FnOnce(*mut sys::cordon) -> Result<c_int>) -> Self {
        if self.error.is_some() {
            return self;
        }
        let h = self.h.as_ref().expect("a handle when no error");
        let r = f(h.ptr()).and_then(|r| h.check(r));
        if let Err(e) = r {
            self.error = Some(e);
        }
        self
    }

    /// One option of `cordon run` by its long name (the library's one
    /// table, `cordon_set_option`): a single-valued option given again
    /// with another value fails, so nothing set before (a profile, a
    /// policy file) is undone by a later call.
    fn opt(self, name: &str, value: Option<&[u8]>) -> Self {
        let name = name.to_string();
        self.apply(|c| {
            let n = c_string("an option name", name.as_bytes())?;
            let v = match value {
                Some(v) => Some(c_string(&format!("the value of {}", name), v)?),
                None => None,
            };
            let vp = v.as_ref().map_or(ptr::null(), |v| v.as_ptr());
            Ok(unsafe { sys::cordon_set_option(c, n.as_ptr(), vp) })
        })
    }

    fn opt_path(self, name: &str, p: &Path) -> Self {
        self.opt(name, Some(p.as_os_str().as_bytes()))
    }

    fn flag(self, on: bool, f: unsafe extern "C" fn(*mut sys::cordon, c_int) -> c_int) -> Self {
        self.apply(|c| Ok(unsafe { f(c, on as c_int) }))
    }

    /// `--sandbox` (default `Auto`).
    pub fn mode(self, mode: Mode) -> Self {
        self.opt("sandbox", Some(mode.identifier().as_bytes()))
    }
    /// `-w`: the tree the command may write (default: the current
    /// directory). Set it before a policy file (its relative paths are
    /// the workspace's).
    pub fn workspace(self, dir: impl AsRef<Path>) -> Self {
        self.opt_path("workspace", dir.as_ref())
    }
    /// `--cwd`: where every command of the run starts; resolved now.
    pub fn cwd(self, dir: impl AsRef<Path>) -> Self {
        self.opt_path("cwd", dir.as_ref())
    }
    /// `--allow-write` (repeatable).
    pub fn allow_write(self, path: impl AsRef<Path>) -> Self {
        self.opt_path("allow-write", path.as_ref())
    }
    /// `--pass-file` (repeatable).
    pub fn pass_file(self, path: impl AsRef<Path>) -> Self {
        self.opt_path("pass-file", path.as_ref())
    }
    /// `--allow-socket` (repeatable).
    pub fn allow_socket(self, path: impl AsRef<Path>) -> Self {
        self.opt_path("allow-socket", path.as_ref())
    }
    /// `--protect`: a path inside a writable tree kept read-only (repeatable).
    pub fn protect(self, path: impl AsRef<Path>) -> Self {
        self.opt_path("protect", path.as_ref())
    }
    /// `--no-default-protect`.
    pub fn no_default_protect(self) -> Self {
        self.opt("no-default-protect", None)
    }
    /// `--allow-agent-config` (repeatable).
    pub fn allow_agent_config(self, path: impl AsRef<Path>) -> Self {
        self.opt_path("allow-agent-config", path.as_ref())
    }
    /// `--deny-read` (repeatable).
    pub fn deny_read(self, path: impl AsRef<Path>) -> Self {
        self.opt_path("deny-read", path.as_ref())
    }
    /// `--allow-read` (repeatable).
    pub fn allow_read(self, path: impl AsRef<Path>) -> Self {
        self.opt_path("allow-read", path.as_ref())
    }
    /// `--no-default-deny-read`.
    pub fn no_default_deny_read(self) -> Self {
        self.opt("no-default-deny-read", None)
    }
    /// `--network on|off`.
    pub fn network(self, net: Network) -> Self {
        let v: &[u8] = match net {
            Network::On => b"on",
            Network::Off => b"off",
        };
        self.opt("network", Some(v))
    }
    /// `--network allow=LIST` (comma-separated patterns and presets; lists
    /// add up).
    pub fn network_allow(self, list: &str) -> Self {
        self.opt("network", Some(format!("allow={}", list).as_bytes()))
    }
    /// `--network-allow-file`.
    pub fn network_allow_file(self, path: impl AsRef<Path>) -> Self {
        self.opt_path("network-allow-file", path.as_ref())
    }
    /// `--network-allow-local`.
    pub fn network_allow_local(self) -> Self {
        self.opt("network-allow-local", None)
    }
    /// `--network-allow-http`.
    pub fn network_allow_http(self) -> Self {
        self.opt("network-allow-http", None)
    }
    /// `--network-resolve NAME=ADDR`.
    pub fn network_resolve(self, name_eq_addr: &str) -> Self {
        self.opt("network-resolve", Some(name_eq_addr.as_bytes()))
    }
    /// `--cache LIST`: the writable tool caches ("cargo,npm,go").
    pub fn caches(self, list: &str) -> Self {
        self.opt("cache", Some(list.as_bytes()))
    }
    /// `--no-caches`.
    pub fn no_caches(self) -> Self {
        self.opt("no-caches", None)
    }
    /// `--on-tamper` (the default: fail in `required` mode, else neutralise).
    pub fn on_tamper(self, how: OnTamper) -> Self {
        let v: &[u8] = match how {
            OnTamper::Neutralise => b"neutralise",
            OnTamper::Fail => b"fail",
        };
        self.opt("on-tamper", Some(v))
    }
    /// `--state-dir`: where the run's temp dir is made.
    pub fn state_dir(self, dir: impl AsRef<Path>) -> Self {
        self.opt_path("state-dir", dir.as_ref())
    }
    /// `--status-file`: the events are appended there too.
    pub fn status_file(self, path: impl AsRef<Path>) -> Self {
        self.opt_path("status-file", path.as_ref())
    }
    /// `--timeout`: the command's process group is killed after it
    /// (TERM, a grace, KILL; exit status 124). Rounded up to milliseconds;
    /// zero is refused (no timeout is the default).
    pub fn timeout(self, t: Duration) -> Self {
        let mut ms = t.as_millis();
        if Duration::from_millis(ms.min(u64::MAX as u128) as u64) < t {
            ms += 1;
        }
        let v = format!("{}.{:03}", ms / 1000, ms % 1000);
        self.opt("timeout", Some(v.as_bytes()))
    }
    /// `--max-procs`.
    pub fn max_procs(self, n: u64) -> Self {
        self.opt("max-procs", Some(n.to_string().as_bytes()))
    }
    /// `--max-memory` (bytes).
    pub fn max_memory(self, bytes: u64) -> Self {
        self.opt("max-memory", Some(bytes.to_string().as_bytes()))
    }
    /// `--max-tmp` (bytes).
    pub fn max_tmp(self, bytes: u64) -> Self {
        self.opt("max-tmp", Some(bytes.to_string().as_bytes()))
    }
    /// `--clean-env`.
    pub fn clean_env(self) -> Self {
        self.opt("clean-env", None)
    }
    /// `--env NAME=VALUE` sets NAME; `--env NAME` passes the caller's.
    pub fn env(self, spec: impl AsRef<OsStr>) -> Self {
        self.opt("env", Some(spec.as_ref().as_bytes()))
    }
    /// `--keep-fd`: an fd of this process the commands keep. It must stay
    /// open (and be the same file) until the run's last spawn.
    pub fn keep_fd(self, fd: RawFd) -> Self {
        self.opt("keep-fd", Some(fd.to_string().as_bytes()))
    }
    /// `--allow-broad`: accept "/", the home or an ancestor as writable.
    pub fn allow_broad(self) -> Self {
        self.opt("allow-broad", None)
    }
    /// `--explain` (short or full; given twice, the fuller holds).
    pub fn explain(self, how: Explain) -> Self {
        match how {
            Explain::Short => self.opt("explain", Some(b"short")),
            Explain::Full => self.opt("explain", Some(b"full")),
        }
    }
    /// `--scratch-home`.
    pub fn scratch_home(self) -> Self {
        self.opt("scratch-home", None)
    }
    /// Any option of `cordon run` by its long name ("network",
    /// "allow-write"), `None` for one that takes no value.
    pub fn option(self, name: &str, value: Option<&str>) -> Self {
        self.opt(name, value.map(str::as_bytes))
    }
    /// `--policy FILE`: read now; set the workspace first.
    pub fn policy(self, path: impl AsRef<Path>) -> Self {
        self.opt_path("policy", path.as_ref())
    }
    /// `--profile NAME` ([`profile_names`]).
    pub fn profile(self, name: &str) -> Self {
        self.opt("profile", Some(name.as_bytes()))
    }
    /// The options agents' entry points use (`--agent-policy`).
    pub fn agent_policy(self) -> Self {
        self.apply(|c| Ok(unsafe { sys::cordon_use_agent_policy(c) }))
    }
    /// Hand the terminal to the command while it runs (the CLI's way;
    /// library only, default off).
    pub fn foreground(self, on: bool) -> Self {
        self.flag(on, sys::cordon_set_foreground)
    }
    /// Become a child subreaper and kill every child of this process at
    /// the end (only for a process that runs nothing but the run's;
    /// library only, default off).
    pub fn reap_all(self, on: bool) -> Self {
        self.flag(on, sys::cordon_set_reap_all)
    }
    /// Read the run's status events into [`Run::events`] and [`Report`]
    /// (default on). These bindings then own the run's status fd: the
    /// option `status-fd` given by name with another value fails at
    /// `begin`. [`Builder::status_file`] works either way.
    pub fn capture_events(mut self, on: bool) -> Self {
        self.events = on;
        self
    }

    /// The first failure so far, if any.
    pub fn error(&self) -> Option<&Error> {
        self.error.as_ref()
    }

    /// The options given by name so far, in the policy file format.
    pub fn options_text(&self) -> Result<String> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        let h = self.h.as_ref().expect("a handle when no error");
        let t = unsafe { taken_bytes(sys::cordon_options_text(h.ptr())) };
        t.map(|b| String::from_utf8_lossy(&b).into_owned())
            .ok_or_else(|| Error::new(ErrorCode::OutOfMemory, "cordon_options_text: out of memory"))
    }

    fn take(mut self) -> Result<Handle> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        Ok(self.h.take().expect("a handle when no error"))
    }

    /// Only probes what confinement works here for these options (a
    /// throw-away child, once per process): no temp dir, no event.
    pub fn probe(self) -> Result<Probe> {
        let h = self.take()?;
        let owner = Owner(h);
        owner.0.check(unsafe { sys::cordon_probe(owner.0.ptr()) })?;
        let c = owner.0.ptr();
        let json = unsafe { taken_bytes(sys::cordon_probe_json(c)) }.ok_or_else(|| {
            Error::new(ErrorCode::OutOfMemory, "cordon_probe_json: out of memory")
        })?;
        let json = json::parse(&json)
            .map_err(|e| Error::new(ErrorCode::System, format!("cordon_probe_json: {}", e)))?;
        unsafe {
            Ok(Probe {
                applied: sys::cordon_applied(c) != 0,
                backend: owned_str(sys::cordon_backend_name(c)).unwrap_or_default(),
                reason: owned_str(sys::cordon_reason(c)),
                cause: owned_str(sys::cordon_cause(c)),
                detail: owned_str(sys::cordon_reason_detail(c)),
                abi: sys::cordon_abi(c) as u32,
                layers: owned_list(sys::cordon_layers(c)),
                gaps: owned_list(sys::cordon_gaps(c)),
                json,
            })
        }
    }

    /// Starts the run (`cordon_begin`): decides, makes the run's temp dir,
    /// prepares the layers.
    pub fn begin(self) -> Result<Run> {
        let events = self.events;
        let h = self.take()?;
        Run::begin(h, events)
    }
}

impl Drop for Builder {
    fn drop(&mut self) {
        if let Some(h) = self.h.take() {
            drop(Owner(h));
        }
    }
}

/// What [`Builder::probe`] found.
#[derive(Clone, Debug, PartialEq)]
pub struct Probe {
    pub applied: bool,
    pub backend: String,
    pub reason: Option<String>,
    pub cause: Option<String>,
    /// What the platform's probe saw, when unavailable.
    pub detail: Option<String>,
    pub abi: u32,
    pub layers: Vec<String>,
    pub gaps: Vec<String>,
    /// `cordon_probe_json()`: the whole answer (`cordon probe --json`).
    pub json: json::Value,
}
