//! A command of a run: its stdio, its process, how it ended.
use std::ffi::OsStr;
use std::fs::File;
use std::io::Read;
use std::marker::PhantomData;
use std::os::raw::c_int;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::io::{AsRawFd, BorrowedFd};
use std::ptr::NonNull;

use crate::{Error, ErrorCode, Result, Run, SIGKILL};
use cordon_sys as sys;

/// Where a command's fd 0, 1 or 2 goes (`struct cordon_stdio`).
#[derive(Clone, Copy, Debug)]
pub enum Stdio<'fd> {
    /// This process's own fd 0, 1 or 2.
    Inherit,
    /// A new pipe; this process gets the other end ([`Child::stdin`], ...).
    Pipe,
    /// `/dev/null`.
    Null,
    /// A copy of this fd (borrowed for the spawn; judged as cordon judges
    /// the caller's fds 0-2: one that would leak is refused).
    Fd(BorrowedFd<'fd>),
    /// For stderr only: wherever stdout goes (`2>&1`).
    ToStdout,
}

impl<'fd> Stdio<'fd> {
    pub(crate) fn raw(&self) -> (c_int, c_int) {
        match self {
            Stdio::Inherit => (sys::CORDON_STDIO_INHERIT, -1),
            Stdio::Pipe => (sys::CORDON_STDIO_PIPE, -1),
            Stdio::Null => (sys::CORDON_STDIO_NULL, -1),
            Stdio::Fd(fd) => (sys::CORDON_STDIO_FD, fd.as_raw_fd()),
            Stdio::ToStdout => (sys::CORDON_STDIO_STDOUT, -1),
        }
    }
}

/// A command line and its stdio, for [`Run::spawn`]. The environment and
/// the working directory are the run's (see [`Builder::env`],
/// [`Builder::cwd`]).
#[derive(Clone, Debug)]
pub struct Command<'fd> {
    pub(crate) argv: Vec<Vec<u8>>,
    pub(crate) stdin: Stdio<'fd>,
    pub(crate) stdout: Stdio<'fd>,
    pub(crate) stderr: Stdio<'fd>,
}

impl<'fd> Command<'fd> {
    pub fn new(program: impl AsRef<OsStr>) -> Command<'fd> {
        Command {
            argv: vec![program.as_ref().as_bytes().to_vec()],
            stdin: Stdio::Inherit,
            stdout: Stdio::Inherit,
            stderr: Stdio::Inherit,
        }
    }
    pub fn arg(mut self, a: impl AsRef<OsStr>) -> Self {
        self.argv.push(a.as_ref().as_bytes().to_vec());
        self
    }
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        for a in args {
            self.argv.push(a.as_ref().as_bytes().to_vec());
        }
        self
    }
    pub fn stdin(mut self, s: Stdio<'fd>) -> Self {
        self.stdin = s;
        self
    }
    pub fn stdout(mut self, s: Stdio<'fd>) -> Self {
        self.stdout = s;
        self
    }
    pub fn stderr(mut self, s: Stdio<'fd>) -> Self {
        self.stderr = s;
        self
    }
}

/// How a command ended (`struct cordon_result`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExitStatus {
    code: i32,
    signal: Option<i32>,
    timed_out: bool,
    exec_errno: Option<i32>,
}

impl ExitStatus {
    pub(crate) fn from_raw(r: sys::cordon_result) -> ExitStatus {
        ExitStatus {
            code: r.exit_code,
            signal: if r.signal != 0 { Some(r.signal) } else { None },
            timed_out: r.timed_out != 0,
            exec_errno: if r.exec_errno != 0 { Some(r.exec_errno) } else { None },
        }
    }
    /// 0-255 as the shell reports it: 128+N when killed by signal N, 124
    /// on the timeout, 125 when confinement failed, 126/127 exec failures.
    pub fn code(&self) -> i32 {
        self.code
    }
    pub fn success(&self) -> bool {
        self.code == 0
    }
    pub fn signal(&self) -> Option<i32> {
        self.signal
    }
    pub fn timed_out(&self) -> bool {
        self.timed_out
    }
    /// errno of a failed exec.
    pub fn exec_errno(&self) -> Option<i32> {
        self.exec_errno
    }
}

/// A command's status and the output [`Run::output`] collected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Output {
    pub status: ExitStatus,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

/// A started command. Dropping it without [`Child::wait`] kills its
/// process group (SIGKILL) and reaps it.
pub struct Child<'run> {
    pub(crate) p: Option<NonNull<sys::cordon_proc>>,
    pub(crate) pid: u32,
    /// The write end of its stdin with [`Stdio::Pipe`] (drop it to give the
    /// command end-of-file).
    pub stdin: Option<File>,
    /// The read end of its stdout with [`Stdio::Pipe`].
    pub stdout: Option<File>,
    /// The read end of its stderr with [`Stdio::Pipe`].
    pub stderr: Option<File>,
    pub(crate) _run: PhantomData<&'run Run>,
}

// The process is the library's; signalling it (`cordon_proc_kill`: killpg)
// and reading its pid are safe from any thread, and waiting takes the
// Child by value.
unsafe impl Send for Child<'_> {}
unsafe impl Sync for Child<'_> {}

impl<'run> Child<'run> {
    /// The command's process id; it leads its own process group.
    pub fn id(&self) -> u32 {
        self.pid
    }

    /// Sends `sig` to the command's whole process group.
    pub fn kill(&self, sig: i32) -> Result<()> {
        let p = self.p.expect("a child not waited for");
        let r = unsafe { sys::cordon_proc_kill(p.as_ptr(), sig) };
        if r == 0 {
            Ok(())
        } else {
            Err(Error::new(
                ErrorCode::from_raw(r),
                format!("cannot signal process group {}", self.pid),
            ))
        }
    }

    /// Waits for the command (honouring the run's timeout). Its stdin pipe
    /// is closed first; its output pipes are not read: read them before,
    /// or use [`Child::wait_with_output`] (a full pipe stops the command).
    pub fn wait(mut self) -> Result<ExitStatus> {
        drop(self.stdin.take());
        let p = self.p.take().expect("a child not waited for");
        let mut res = sys::cordon_result::default();
        let r = unsafe { sys::cordon_wait(p.as_ptr(), &mut res) };
        if r != 0 {
            return Err(Error::new(ErrorCode::from_raw(r), "waiting for the command failed"));
        }
        Ok(ExitStatus::from_raw(res))
    }

    /// Reads its stdout and stderr pipes to their ends while it waits
    /// (the run's timeout is kept by the wait: it must run meanwhile).
    pub fn wait_with_output(mut self) -> Result<Output> {
        drop(self.stdin.take());
        let out = self.stdout.take();
        let err = self.stderr.take();
        fn read_all(f: Option<File>) -> std::io::Result<Vec<u8>> {
            let mut v = Vec::new();
            if let Some(mut f) = f {
                f.read_to_end(&mut v)?;
            }
            Ok(v)
        }
        let (status, stdout, stderr) = std::thread::scope(move |s| {
            let to = s.spawn(move || read_all(out));
            let te = s.spawn(move || read_all(err));
            let status = self.wait();
            let lost = || Err(std::io::Error::new(std::io::ErrorKind::Other, "a reader panicked"));
            (status, to.join().unwrap_or_else(|_| lost()), te.join().unwrap_or_else(|_| lost()))
        });
        let io =
            |e: std::io::Error| Error::new(ErrorCode::System, format!("reading the output: {}", e));
        let status = status?;
        Ok(Output { status, stdout: stdout.map_err(io)?, stderr: stderr.map_err(io)? })
    }
}

impl Drop for Child<'_> {
    fn drop(&mut self) {
        if let Some(p) = self.p.take() {
            let mut res = sys::cordon_result::default();
            unsafe {
                sys::cordon_proc_kill(p.as_ptr(), SIGKILL);
                sys::cordon_wait(p.as_ptr(), &mut res);
            }
        }
    }
}
