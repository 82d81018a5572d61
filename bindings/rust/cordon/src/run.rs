//! A run under way: its spawns, its decision, its events, its end.
use std::ffi::{CStr, CString, OsStr};
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::marker::PhantomData;
use std::os::raw::c_char;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::io::{AsRawFd, FromRawFd};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::ptr::{self, NonNull};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;

use crate::process::{Child, Command, ExitStatus, Output, Stdio};
use crate::raw::{c_string, lock, owned_list, owned_str, taken_bytes, Handle, Owner};
use crate::{Error, ErrorCode, Event, ExitEvent, Result, StatusEvent, Tampered};
use cordon_sys as sys;

/// The run's status events, read from a socket the library writes them to
/// (its status fd) by a thread of ours, so that the library never blocks
/// on a full buffer.
struct Collector {
    write: UnixStream,
    events: Arc<Mutex<Vec<Event>>>,
    thread: Option<JoinHandle<()>>,
}

impl Collector {
    fn start() -> std::io::Result<Collector> {
        let (read, write) = UnixStream::pair()?;
        read.shutdown(std::net::Shutdown::Write)?;
        let events = Arc::new(Mutex::new(Vec::new()));
        let into = Arc::clone(&events);
        let thread = std::thread::Builder::new().name("cordon-events".into()).spawn(move || {
            let mut r = BufReader::new(read);
            let mut line = Vec::new();
            loop {
                line.clear();
                match r.read_until(b'\n', &mut line) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        if line.iter().all(u8::is_ascii_whitespace) {
                            continue;
                        }
                        let ev = Event::parse(&line);
                        lock(&into).push(ev);
                    }
                }
            }
        })?;
        Ok(Collector { write, events, thread: Some(thread) })
    }

    /// Every event, once the library has closed the run (no more writes).
    fn finish(mut self) -> Vec<Event> {
        let _ = self.write.shutdown(std::net::Shutdown::Write);
        drop(self.write);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        let v = std::mem::take(&mut *lock(&self.events));
        v
    }
}

/// A run: begun, not yet ended. Dropping it ends it (as [`Run::end`],
/// the error and the report lost).
pub struct Run {
    h: Option<Handle>,
    /// A spawn has succeeded: the decision is final from then on.
    settled: AtomicBool,
    /// Held by spawns and getters until then (the library's first spawn
    /// may plan the run again; a getter must not read it meanwhile).
    first: Mutex<()>,
    collector: Option<Collector>,
}

// Send: the handle is tied to no thread (see Handle). Sync: the library
// allows spawns from any threads at once, its getters read a decision
// that is final once a spawn returned (before that, `first` keeps them
// apart), and `end` takes the Run by value, so it cannot race a spawn or
// a child (children borrow the Run).
unsafe impl Sync for Run {}

impl Run {
    pub(crate) fn begin(h: Handle, events: bool) -> Result<Run> {
        let mut run = Run {
            h: Some(h),
            settled: AtomicBool::new(false),
            first: Mutex::new(()),
            collector: None,
        };
        if events {
            let col = Collector::start().map_err(|e| {
                Error::new(ErrorCode::System, format!("the status events' socket: {}", e))
            })?;
            let fd = CString::new(col.write.as_raw_fd().to_string()).expect("digits");
            let name = CString::new("status-fd").expect("no NUL");
            let c = run.raw();
            run.collector = Some(col);
            run.handle().check(unsafe { sys::cordon_set_option(c, name.as_ptr(), fd.as_ptr()) })?;
        }
        let c = run.raw();
        run.handle().check(unsafe { sys::cordon_begin(c) })?;
        Ok(run)
    }

    fn handle(&self) -> &Handle {
        self.h.as_ref().expect("an open run")
    }

    fn raw(&self) -> *mut sys::cordon {
        self.handle().ptr()
    }

    /// Held while the decision may still change.
    fn unsettled(&self) -> Option<MutexGuard<'_, ()>> {
        if self.settled.load(Ordering::Acquire) {
            None
        } else {
            Some(lock(&self.first))
        }
    }

    /// Starts a command (`cordon_spawn_stdio`). `argv[0]` is looked up in
    /// the command's `PATH` after confinement.
    pub fn spawn<'fd>(&self, cmd: &Command<'fd>) -> Result<Child<'_>> {
        let args: Vec<CString> =
            cmd.argv.iter().map(|a| c_string("an argument", a)).collect::<Result<_>>()?;
        let mut argv: Vec<*const c_char> = args.iter().map(|a| a.as_ptr()).collect();
        argv.push(ptr::null());
        let mut io = sys::cordon_stdio { how: [0; 3], fd: [-1; 3] };
        for (i, s) in [&cmd.stdin, &cmd.stdout, &cmd.stderr].iter().enumerate() {
            let (how, fd) = s.raw();
            io.how[i] = how;
            io.fd[i] = fd;
        }
        if matches!(cmd.stdin, Stdio::ToStdout) || matches!(cmd.stdout, Stdio::ToStdout) {
            return Err(Error::new(
                ErrorCode::InvalidArgument,
                "Stdio::ToStdout is for stderr only",
            ));
        }
        let mut p: *mut sys::cordon_proc = ptr::null_mut();
        let c = self.raw();
        let r = {
            let guard = self.unsettled();
            let r = unsafe { sys::cordon_spawn_stdio(c, argv.as_ptr(), &mut io, &mut p) };
            let res = self.handle().check(r);
            if res.is_ok() && guard.is_some() {
                self.settled.store(true, Ordering::Release);
            }
            res
        };
        r?;
        let p = NonNull::new(p).ok_or_else(|| Error::new(ErrorCode::System, "no process"))?;
        let pipe = |i: usize, s: &Stdio<'_>| -> Option<File> {
            if matches!(s, Stdio::Pipe) && io.fd[i] >= 0 {
                Some(unsafe { File::from_raw_fd(io.fd[i]) })
            } else {
                None
            }
        };
        Ok(Child {
            p: Some(p),
            pid: unsafe { sys::cordon_proc_pid(p.as_ptr()) } as u32,
            stdin: pipe(0, &cmd.stdin),
            stdout: pipe(1, &cmd.stdout),
            stderr: pipe(2, &cmd.stderr),
            _run: PhantomData,
        })
    }

    /// Runs a command to its end and collects its output: stdout and
    /// stderr are pipes unless the command says otherwise, stdin
    /// `/dev/null` unless it says otherwise.
    pub fn output(&self, cmd: &Command<'_>) -> Result<Output> {
        let mut c = cmd.clone();
        if matches!(c.stdin, Stdio::Inherit) {
            c.stdin = Stdio::Null;
        }
        if matches!(c.stdout, Stdio::Inherit) {
            c.stdout = Stdio::Pipe;
        }
        if matches!(c.stderr, Stdio::Inherit) {
            c.stderr = Stdio::Pipe;
        }
        self.spawn(&c)?.wait_with_output()
    }

    /// Whether confinement is applied (final once a spawn returned).
    pub fn applied(&self) -> bool {
        let _g = self.unsettled();
        unsafe { sys::cordon_applied(self.raw()) != 0 }
    }
    /// `landlock`, `seatbelt` or `none`.
    pub fn backend(&self) -> String {
        let _g = self.unsettled();
        unsafe { owned_str(sys::cordon_backend_name(self.raw())) }.unwrap_or_default()
    }
    /// `None` when applied, else a reason identifier.
    pub fn reason(&self) -> Option<String> {
        let _g = self.unsettled();
        unsafe { owned_str(sys::cordon_reason(self.raw())) }
    }
    /// The platform's reason behind `bash_sandbox_unavailable`.
    pub fn cause(&self) -> Option<String> {
        let _g = self.unsettled();
        unsafe { owned_str(sys::cordon_cause(self.raw())) }
    }
    pub fn abi(&self) -> u32 {
        let _g = self.unsettled();
        unsafe { sys::cordon_abi(self.raw()) as u32 }
    }
    pub fn layers(&self) -> Vec<String> {
        let _g = self.unsettled();
        unsafe { owned_list(sys::cordon_layers(self.raw())) }
    }
    pub fn gaps(&self) -> Vec<String> {
        let _g = self.unsettled();
        unsafe { owned_list(sys::cordon_gaps(self.raw())) }
    }
    /// The run's temp dir (the command's `TMPDIR`), if it has one.
    pub fn tmpdir(&self) -> Option<PathBuf> {
        let _g = self.unsettled();
        let p = unsafe { sys::cordon_tmpdir(self.raw()) };
        if p.is_null() {
            None
        } else {
            Some(PathBuf::from(OsStr::from_bytes(unsafe { CStr::from_ptr(p) }.to_bytes())))
        }
    }
    /// The start event as the run would write it now
    /// (`cordon_status_json`): what is assumed until the first spawn
    /// returned, final after.
    pub fn status(&self) -> Result<StatusEvent> {
        let bytes = {
            let _g = self.unsettled();
            unsafe { taken_bytes(sys::cordon_status_json(self.raw())) }
        };
        let bytes = bytes.ok_or_else(|| {
            Error::new(ErrorCode::OutOfMemory, "cordon_status_json: out of memory")
        })?;
        match Event::parse(&bytes) {
            Event::Status(s) => Ok(s),
            other => Err(Error::new(
                ErrorCode::System,
                format!("cordon_status_json: not a start event: {:?}", other),
            )),
        }
    }
    /// The events read so far (the start event comes with the first spawn;
    /// it may arrive a moment after the spawn returned). Empty without
    /// [`Builder::capture_events`].
    pub fn events(&self) -> Vec<Event> {
        match &self.collector {
            Some(c) => lock(&c.events).clone(),
            None => Vec::new(),
        }
    }

    /// Ends the run (`cordon_end`): what still runs is killed, the guards
    /// judge what the run left, the temp dir is removed, the exit event
    /// written. The report holds the run's events. When the run planted
    /// files ([`ErrorCode::Tampered`]) or was refused at its end, the
    /// error carries the report ([`Error::report`]).
    pub fn end(mut self) -> Result<Report> {
        let h = self.h.take().expect("an open run");
        let owner = Owner(h);
        let c = owner.0.ptr();
        let r = owner.0.check(unsafe { sys::cordon_end(c) });
        let mut tampered = Vec::new();
        let n = unsafe { sys::cordon_tampered_count(c) };
        for i in 0..n {
            let path = unsafe { sys::cordon_tampered_path(c, i) };
            let moved = unsafe { sys::cordon_tampered_moved(c, i) };
            if path.is_null() {
                break;
            }
            let path = PathBuf::from(OsStr::from_bytes(unsafe { CStr::from_ptr(path) }.to_bytes()));
            let moved = if moved.is_null() {
                None
            } else {
                let m = unsafe { CStr::from_ptr(moved) }.to_bytes();
                if m.is_empty() {
                    None
                } else {
                    Some(PathBuf::from(OsStr::from_bytes(m)))
                }
            };
            tampered.push(Tampered { path, moved_to: moved });
        }
        let mut res = sys::cordon_result::default();
        let last = if unsafe { sys::cordon_last_result(c, &mut res) } == 0 {
            Some(ExitStatus::from_raw(res))
        } else {
            None
        };
        drop(owner);
        let events = self.collector.take().map(Collector::finish).unwrap_or_default();
        let start = events.iter().find_map(|e| match e {
            Event::Status(s) => Some(s.clone()),
            _ => None,
        });
        let exit = events.iter().rev().find_map(|e| match e {
            Event::Exit(x) => Some(x.clone()),
            _ => None,
        });
        let report = Report { start, exit, events, tampered, last };
        match r {
            Ok(()) => Ok(report),
            Err(e) => Err(e.with_report(report)),
        }
    }
}

impl Drop for Run {
    fn drop(&mut self) {
        if let Some(h) = self.h.take() {
            unsafe { sys::cordon_end(h.ptr()) };
            drop(Owner(h));
        }
        if let Some(c) = self.collector.take() {
            c.finish();
        }
    }
}

/// What a run reported when it ended.
#[derive(Clone, Debug)]
pub struct Report {
    /// The start event (`None` without captured events).
    pub start: Option<StatusEvent>,
    /// The exit event: written when a command was waited for.
    pub exit: Option<ExitEvent>,
    /// Every event of the run, in order (network decisions included).
    pub events: Vec<Event>,
    /// What the guards moved aside (`cordon_tampered_*`).
    pub tampered: Vec<Tampered>,
    /// How the command waited for last ended.
    pub last: Option<ExitStatus>,
}
