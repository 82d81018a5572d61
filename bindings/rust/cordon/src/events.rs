//! The status events cordon writes, one JSON object a line (the CLI
//! reference, "Status events"), as types. Every event keeps its whole
//! object in `raw`, so a field these types do not name is still there.
//!
//! Identifiers (`mode`, `backend`, `reason`, layers, gaps, ...) are
//! strings from [`crate::identifiers`]: new ones are added over time, so
//! they are not closed enums here. Paths are [`PathBuf`]s holding the
//! bytes on disk (cordon's `\udcXX` escapes undone).
use crate::json::{self, Value};
use crate::Mode;
use std::path::PathBuf;

/// One line of the status stream. (A run writes a few; the start event
/// is the large one, so the variants are not boxed.)
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// `bash_sandbox_status`: the start of a run.
    Status(StatusEvent),
    /// `bash_sandbox_exit`: the end of a run.
    Exit(ExitEvent),
    /// `network_connect`: one decision of the allow-list proxy.
    NetworkConnect(NetworkConnect),
    /// An event of another name (`network_connect_suppressed`, or one
    /// added after these bindings): its name and its object.
    Other { event: String, raw: Value },
    /// A line that is not an event this crate can read (not JSON, or a
    /// known event without its required fields): never dropped silently.
    Invalid { line: Vec<u8>, error: String },
}

/// The start event (`bash_sandbox_status`).
#[derive(Clone, Debug, PartialEq)]
pub struct StatusEvent {
    pub run_id: String,
    pub mode: Mode,
    /// `landlock`, `seatbelt` or `none`.
    pub backend: String,
    /// True only when confinement is in force for the command.
    pub applied: bool,
    /// `None` when applied; else a reason identifier.
    pub reason: Option<String>,
    /// With reason `bash_sandbox_unavailable`: the platform's reason.
    pub cause: Option<String>,
    /// The Landlock ABI in use (0 when none).
    pub abi: u32,
    pub layers: Vec<String>,
    /// What is not restricted in this run.
    pub gaps: Vec<String>,
    /// The writable set; `None` when not applied (everything is then).
    pub writable: Option<Vec<PathBuf>>,
    pub protected: Option<Vec<Protected>>,
    pub read_denied: Option<Vec<ReadDenied>>,
    pub caches: Option<Vec<Cache>>,
    /// Environment names kept from the command (never values).
    pub env_removed: Vec<String>,
    /// `on`, `off` or `allow`.
    pub network: Option<String>,
    pub network_allow: Option<Vec<String>>,
    pub network_proxy: Option<String>,
    pub cwd: Option<PathBuf>,
    pub cwd_from: Option<String>,
    pub tmpdir: Option<PathBuf>,
    pub scratch_home: bool,
    pub raw: Value,
}

/// A protected path of the start event.
#[derive(Clone, Debug, PartialEq)]
pub struct Protected {
    pub path: PathBuf,
    pub explicit: bool,
    pub enforced: bool,
    /// How it is held (`read_only`, `moved_at_end`, ...), or `None`.
    pub held: Option<String>,
}

/// A path of the deny-read list.
#[derive(Clone, Debug, PartialEq)]
pub struct ReadDenied {
    pub path: PathBuf,
    pub explicit: bool,
    pub enforced: bool,
    /// The mechanism (`mount_namespace`, ...), or `None`: readable.
    pub by: Option<String>,
}

/// A tool cache of the start event.
#[derive(Clone, Debug, PartialEq)]
pub struct Cache {
    pub name: String,
    pub path: Option<PathBuf>,
    /// `existing`, `created`, `refused`, `unavailable`, `missing`,
    /// `inside` or `redirected`.
    pub state: String,
    /// The variable cordon set to move the tool there, if any.
    pub variable: Option<String>,
}

/// The exit event (`bash_sandbox_exit`).
#[derive(Clone, Debug, PartialEq)]
pub struct ExitEvent {
    pub run_id: String,
    /// cordon's exit status: the command's, or 125.
    pub exit_code: i32,
    /// The command's own status as the shell reports it.
    pub command_exit_code: i32,
    pub signal: Option<i32>,
    pub timed_out: bool,
    pub duration_ms: u64,
    pub started_at: String,
    pub ended_at: String,
    /// What the guards moved aside when the run ended.
    pub tampered: Vec<Tampered>,
    /// What a refusal by this run's policy would look like (`None` when
    /// confinement was not applied). Read from `possible_refusals`, or
    /// from `refusals`, its name before 2026-12-06.
    pub possible_refusals: Option<Vec<PossibleRefusal>>,
    pub network_connections: Option<NetworkCounts>,
    pub raw: Value,
}

/// A file the run planted, moved aside (`moved_to` `None`: it could not be).
#[derive(Clone, Debug, PartialEq)]
pub struct Tampered {
    pub path: PathBuf,
    pub moved_to: Option<PathBuf>,
}

/// A kind of refusal (`write`, `read`, `network`, ...) and what the
/// command sees when it meets one.
#[derive(Clone, Debug, PartialEq)]
pub struct PossibleRefusal {
    pub kind: String,
    pub means: String,
}

/// The proxy's counts of a `--network allow` run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetworkCounts {
    pub allowed: u64,
    pub refused: u64,
    pub events_dropped: u64,
}

/// One connection the allow-list proxy decided.
#[derive(Clone, Debug, PartialEq)]
pub struct NetworkConnect {
    pub run_id: String,
    /// `connect`, `http`, `socks5` or `unknown`.
    pub proto: String,
    pub host: String,
    pub port: u16,
    pub address: Option<String>,
    /// `allowed` or `refused`.
    pub decision: String,
    pub reason: Option<String>,
    pub raw: Value,
}

/// Why an event lacks what it must hold.
type Missing = String;

fn need<'a>(v: &'a Value, key: &str) -> Result<&'a Value, Missing> {
    v.get(key).ok_or_else(|| format!("no \"{}\"", key))
}

fn string(v: &Value, key: &str) -> Result<String, Missing> {
    need(v, key)?.as_str().map(str::to_string).ok_or_else(|| format!("\"{}\" is not a string", key))
}

fn opt_string(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_string)
}

fn int(v: &Value, key: &str) -> Result<i64, Missing> {
    need(v, key)?.as_i64().ok_or_else(|| format!("\"{}\" is not an integer", key))
}

fn flag(v: &Value, key: &str) -> bool {
    v.get(key).and_then(Value::as_bool).unwrap_or(false)
}

fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect())
        .unwrap_or_default()
}

fn opt_strings(v: &Value, key: &str) -> Option<Vec<String>> {
    v.get(key).filter(|x| !x.is_null()).map(|x| strings(Some(x)))
}

fn opt_path(v: &Value, key: &str) -> Option<PathBuf> {
    v.get(key).and_then(Value::as_path)
}

/// A list of objects, `None` when the member is null or missing.
fn objects<T>(v: &Value, key: &str, f: impl Fn(&Value) -> Option<T>) -> Option<Vec<T>> {
    v.get(key).and_then(Value::as_array).map(|a| a.iter().filter_map(&f).collect())
}

impl StatusEvent {
    fn from_value(v: Value) -> Result<StatusEvent, Missing> {
        let mode = string(&v, "mode")?;
        let mode = Mode::from_identifier(&mode).ok_or_else(|| format!("unknown mode {}", mode))?;
        Ok(StatusEvent {
            run_id: string(&v, "run_id")?,
            mode,
            backend: string(&v, "backend")?,
            applied: need(&v, "applied")?.as_bool().ok_or("\"applied\" is not a boolean")?,
            reason: opt_string(&v, "reason"),
            cause: opt_string(&v, "cause"),
            abi: v.get("abi").and_then(Value::as_u64).unwrap_or(0) as u32,
            layers: strings(v.get("layers")),
            gaps: strings(v.get("gaps")),
            writable: v
                .get("writable")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_path).collect()),
            protected: objects(&v, "protected", |p| {
                Some(Protected {
                    path: opt_path(p, "path")?,
                    explicit: flag(p, "explicit"),
                    enforced: flag(p, "enforced"),
                    held: opt_string(p, "held"),
                })
            }),
            read_denied: objects(&v, "read_denied", |p| {
                Some(ReadDenied {
                    path: opt_path(p, "path")?,
                    explicit: flag(p, "explicit"),
                    enforced: flag(p, "enforced"),
                    by: opt_string(p, "by"),
                })
            }),
            caches: objects(&v, "caches", |p| {
                Some(Cache {
                    name: opt_string(p, "name")?,
                    path: opt_path(p, "path"),
                    state: opt_string(p, "state")?,
                    variable: opt_string(p, "variable"),
                })
            }),
            env_removed: strings(v.get("env_removed")),
            network: opt_string(&v, "network"),
            network_allow: opt_strings(&v, "network_allow"),
            network_proxy: opt_string(&v, "network_proxy"),
            cwd: opt_path(&v, "cwd"),
            cwd_from: opt_string(&v, "cwd_from"),
            tmpdir: opt_path(&v, "tmpdir"),
            scratch_home: flag(&v, "scratch_home"),
            raw: v,
        })
    }
}

impl ExitEvent {
    fn from_value(v: Value) -> Result<ExitEvent, Missing> {
        let refusals = match v.get("possible_refusals") {
            Some(r) => Some(r),
            None => v.get("refusals"),
        };
        Ok(ExitEvent {
            run_id: string(&v, "run_id")?,
            exit_code: int(&v, "exit_code")? as i32,
            command_exit_code: match v.get("command_exit_code") {
                Some(c) => c.as_i64().ok_or("\"command_exit_code\" is not an integer")? as i32,
                None => int(&v, "exit_code")? as i32,
            },
            signal: v.get("signal").and_then(Value::as_i64).map(|s| s as i32),
            timed_out: flag(&v, "timed_out"),
            duration_ms: v.get("duration_ms").and_then(Value::as_u64).unwrap_or(0),
            started_at: opt_string(&v, "started_at").unwrap_or_default(),
            ended_at: opt_string(&v, "ended_at").unwrap_or_default(),
            tampered: objects(&v, "tampered", |t| {
                Some(Tampered { path: opt_path(t, "path")?, moved_to: opt_path(t, "moved_to") })
            })
            .unwrap_or_default(),
            possible_refusals: refusals.and_then(Value::as_array).map(|a| {
                a.iter()
                    .filter_map(|r| {
                        Some(PossibleRefusal {
                            kind: opt_string(r, "kind")?,
                            means: opt_string(r, "means").unwrap_or_default(),
                        })
                    })
                    .collect()
            }),
            network_connections: v.get("network_connections").and_then(|n| {
                Some(NetworkCounts {
                    allowed: n.get("allowed")?.as_u64()?,
                    refused: n.get("refused")?.as_u64()?,
                    events_dropped: n.get("events_dropped")?.as_u64()?,
                })
            }),
            raw: v,
        })
    }
}

impl NetworkConnect {
    fn from_value(v: Value) -> Result<NetworkConnect, Missing> {
        Ok(NetworkConnect {
            run_id: string(&v, "run_id")?,
            proto: string(&v, "proto")?,
            host: opt_string(&v, "host").unwrap_or_default(),
            port: v.get("port").and_then(Value::as_u64).unwrap_or(0) as u16,
            address: opt_string(&v, "address"),
            decision: string(&v, "decision")?,
            reason: opt_string(&v, "reason"),
            raw: v,
        })
    }
}

impl Event {
    /// One line of the status stream (its newline may be left on).
    pub fn parse(line: &[u8]) -> Event {
        let invalid = |error: String| Event::Invalid { line: line.to_vec(), error };
        let v = match json::parse(line) {
            Ok(v) => v,
            Err(e) => return invalid(e.to_string()),
        };
        let name = match v.get("event").and_then(Value::as_str) {
            Some(n) => n.to_string(),
            None => return invalid("no \"event\" name".to_string()),
        };
        let typed = match name.as_str() {
            cordon_sys::CORDON_EVENT_STATUS => StatusEvent::from_value(v).map(Event::Status),
            cordon_sys::CORDON_EVENT_EXIT => ExitEvent::from_value(v).map(Event::Exit),
            "network_connect" => NetworkConnect::from_value(v).map(Event::NetworkConnect),
            _ => Ok(Event::Other { event: name.clone(), raw: v }),
        };
        typed.unwrap_or_else(|e| invalid(format!("{}: {}", name, e)))
    }

    /// The event's `run_id`, when it has one.
    pub fn run_id(&self) -> Option<&str> {
        match self {
            Event::Status(s) => Some(&s.run_id),
            Event::Exit(e) => Some(&e.run_id),
            Event::NetworkConnect(n) => Some(&n.run_id),
            Event::Other { raw, .. } => raw.get("run_id").and_then(Value::as_str),
            Event::Invalid { .. } => None,
        }
    }
}

/// Every event of a text of lines (a status file), in order; blank lines
/// are skipped.
pub fn parse_lines(text: &[u8]) -> Vec<Event> {
    text.split(|&b| b == b'\n')
        .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
        .map(Event::parse)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_start_and_an_exit_event() {
        let text = br#"{"event":"bash_sandbox_status","run_id":"ab","mode":"required","backend":"landlock","applied":true,"reason":null,"cause":null,"abi":7,"layers":["landlock"],"writable":["/w\udcff"],"protected":[{"path":"/w/.git/hooks","explicit":false,"enforced":true,"held":"read_only"}],"caches":[{"name":"npm","path":null,"state":"missing","variable":null}],"cwd":"/w","cwd_from":"current","tmpdir":null,"gaps":["reads_not_restricted"]}
{"event":"bash_sandbox_exit","run_id":"ab","exit_code":1,"command_exit_code":1,"signal":null,"timed_out":false,"duration_ms":5,"started_at":"a","ended_at":"b","tampered":[{"path":"/w/x","moved_to":null}],"refusals":[{"kind":"write","means":"m"}],"network_connections":null}
{"event":"network_connect_suppressed","run_id":"ab","events_written":1000}
not json
{"event":"bash_sandbox_exit"}
"#;
        let ev = parse_lines(text);
        assert_eq!(ev.len(), 5);
        match &ev[0] {
            Event::Status(s) => {
                assert_eq!(s.mode, Mode::Required);
                assert!(s.applied);
                assert_eq!(s.reason, None);
                assert_eq!(s.abi, 7);
                use std::os::unix::ffi::OsStrExt;
                assert_eq!(s.writable.as_ref().unwrap()[0].as_os_str().as_bytes(), b"/w\xff");
                assert_eq!(s.protected.as_ref().unwrap()[0].held.as_deref(), Some("read_only"));
                assert_eq!(s.caches.as_ref().unwrap()[0].path, None);
                assert_eq!(s.gaps, vec!["reads_not_restricted"]);
            }
            other => panic!("{:?}", other),
        }
        match &ev[1] {
            Event::Exit(e) => {
                assert_eq!(e.exit_code, 1);
                assert_eq!(e.signal, None);
                assert_eq!(e.tampered[0].moved_to, None);
                // The old name of possible_refusals is read too.
                assert_eq!(e.possible_refusals.as_ref().unwrap()[0].kind, "write");
            }
            other => panic!("{:?}", other),
        }
        assert!(
            matches!(&ev[2], Event::Other { event, .. } if event == "network_connect_suppressed")
        );
        assert!(matches!(&ev[3], Event::Invalid { .. }));
        match &ev[4] {
            Event::Invalid { error, .. } => assert!(error.contains("run_id"), "{}", error),
            other => panic!("{:?}", other),
        }
    }
}
