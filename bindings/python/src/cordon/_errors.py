"""Errors: the library's CORDON_E* code and its message."""
import enum


class ErrorCode(enum.IntEnum):
    """The library's CORDON_E* codes."""
    INVALID_ARGUMENT = -1
    OUT_OF_MEMORY = -2
    SYSTEM = -3
    STATE = -4
    REFUSED = -5
    UNAVAILABLE = -6
    CONFINE = -7
    EXEC = -8
    TAMPERED = -9


class CordonError(Exception):
    """A failed call: ``code`` (an ErrorCode, or the int the library
    returned), ``message`` (cordon_last_error()) and, for end(), the run's
    ``report``."""

    def __init__(self, code, message, report=None):
        super().__init__(message or "cordon error %s" % code)
        self.code = code
        self.message = message
        self.report = report


class InvalidArgumentError(CordonError):
    pass


class OutOfMemoryError(CordonError):
    pass


class SystemCallError(CordonError):
    pass


class StateError(CordonError):
    pass


class RefusedError(CordonError):
    pass


class UnavailableError(CordonError):
    """required mode and confinement unavailable here."""


class ConfineError(CordonError):
    pass


class ExecError(CordonError):
    pass


class TamperedError(CordonError):
    """The run planted files a later program would run (moved aside)."""


_ERRORS = {
    ErrorCode.INVALID_ARGUMENT: InvalidArgumentError, ErrorCode.OUT_OF_MEMORY: OutOfMemoryError,
    ErrorCode.SYSTEM: SystemCallError, ErrorCode.STATE: StateError,
    ErrorCode.REFUSED: RefusedError, ErrorCode.UNAVAILABLE: UnavailableError,
    ErrorCode.CONFINE: ConfineError, ErrorCode.EXEC: ExecError,
    ErrorCode.TAMPERED: TamperedError,
}


def _error(code, message, report=None):
    try:
        code = ErrorCode(code)
    except ValueError:
        return CordonError(code, message, report)
    return _ERRORS[code](code, message, report)
