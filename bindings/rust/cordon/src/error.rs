//! Errors: the library's code as an enum and its message (what
//! `cordon_last_error()` said, in the thread that made the call).
use std::fmt;

/// The `CORDON_E*` code of a failed call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// `CORDON_EINVAL`: a bad argument or a bad path.
    InvalidArgument,
    /// `CORDON_ENOMEM`
    OutOfMemory,
    /// `CORDON_ESYS`: an operating system call failed.
    System,
    /// `CORDON_ESTATE`: called at the wrong point of the life cycle.
    State,
    /// `CORDON_EREFUSED`: the policy was refused (a workspace of "/", an
    /// fd given to a spawn that would leak, ...).
    Refused,
    /// `CORDON_EUNAVAILABLE`: `required` mode and confinement unavailable.
    Unavailable,
    /// `CORDON_ECONFINE`: the child could not apply confinement.
    Confine,
    /// `CORDON_EEXEC`: the command could not be executed.
    Exec,
    /// `CORDON_ETAMPERED`: the run planted git or agent files.
    Tampered,
    /// A code this crate does not know.
    Other(i32),
}

impl ErrorCode {
    /// The code of a negative return value.
    pub fn from_raw(code: i32) -> ErrorCode {
        match code {
            cordon_sys::CORDON_EINVAL => ErrorCode::InvalidArgument,
            cordon_sys::CORDON_ENOMEM => ErrorCode::OutOfMemory,
            cordon_sys::CORDON_ESYS => ErrorCode::System,
            cordon_sys::CORDON_ESTATE => ErrorCode::State,
            cordon_sys::CORDON_EREFUSED => ErrorCode::Refused,
            cordon_sys::CORDON_EUNAVAILABLE => ErrorCode::Unavailable,
            cordon_sys::CORDON_ECONFINE => ErrorCode::Confine,
            cordon_sys::CORDON_EEXEC => ErrorCode::Exec,
            cordon_sys::CORDON_ETAMPERED => ErrorCode::Tampered,
            other => ErrorCode::Other(other),
        }
    }

    /// The library's return value for this code.
    pub fn raw(self) -> i32 {
        match self {
            ErrorCode::InvalidArgument => cordon_sys::CORDON_EINVAL,
            ErrorCode::OutOfMemory => cordon_sys::CORDON_ENOMEM,
            ErrorCode::System => cordon_sys::CORDON_ESYS,
            ErrorCode::State => cordon_sys::CORDON_ESTATE,
            ErrorCode::Refused => cordon_sys::CORDON_EREFUSED,
            ErrorCode::Unavailable => cordon_sys::CORDON_EUNAVAILABLE,
            ErrorCode::Confine => cordon_sys::CORDON_ECONFINE,
            ErrorCode::Exec => cordon_sys::CORDON_EEXEC,
            ErrorCode::Tampered => cordon_sys::CORDON_ETAMPERED,
            ErrorCode::Other(c) => c,
        }
    }
}

/// A failed call: the code and the library's one-line message. Errors of
/// these bindings themselves (a NUL byte in an argument, a pipe that
/// could not be made) carry `InvalidArgument` or `System` and a message
/// that says so.
#[derive(Clone, Debug)]
pub struct Error {
    code: ErrorCode,
    message: String,
    report: Option<Box<crate::Report>>,
}

impl Error {
    pub(crate) fn new(code: ErrorCode, message: impl Into<String>) -> Error {
        Error { code, message: message.into(), report: None }
    }

    pub(crate) fn with_report(mut self, report: crate::Report) -> Error {
        self.report = Some(Box::new(report));
        self
    }

    pub fn code(&self) -> ErrorCode {
        self.code
    }

    /// What `cordon_last_error()` said.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// When [`crate::Run::end`] failed after the run ended (the run
    /// planted files: [`ErrorCode::Tampered`]; or it was refused at its
    /// end in `required` mode: [`ErrorCode::Unavailable`]), what the run
    /// reported: its events are written all the same.
    pub fn report(&self) -> Option<&crate::Report> {
        self.report.as_deref()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.message.is_empty() {
            write!(f, "cordon: {:?}", self.code)
        } else {
            write!(f, "cordon: {}", self.message)
        }
    }
}

impl std::error::Error for Error {}

/// `Result` with this crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;
