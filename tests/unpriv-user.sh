# shellcheck shell=bash
# shellcheck disable=SC2034 # variables for the scripts that source this
# The unprivileged user the test suite (and bench/run) runs as when started
# by root: an account every Debian system already has, nobody (65534), so
# that no run ever creates an account. Its passwd home does not exist;
# every script gives it a HOME in its own temp dir. Override with
# CORDON_TEST_UID / CORDON_TEST_GID (an existing unprivileged uid).
UNPRIV_UID=${CORDON_TEST_UID:-65534}
UNPRIV_GID=${CORDON_TEST_GID:-65534}
UNPRIV_NAME=$(getent passwd "$UNPRIV_UID" | cut -d: -f1)
UNPRIV_NAME=${UNPRIV_NAME:-uid$UNPRIV_UID}
if [ "$UNPRIV_UID" -eq 0 ] || [ "$UNPRIV_GID" -eq 0 ]; then
	echo "unpriv-user.sh: the unprivileged user must not be root" >&2
	exit 1
fi
# as_unpriv COMMAND...: run COMMAND as that user, without capabilities or
# supplementary groups, with the caller's environment (pass env -i ... to
# choose it).
as_unpriv() {
	setpriv --reuid="$UNPRIV_UID" --regid="$UNPRIV_GID" --clear-groups --inh-caps=-all \
		--bounding-set=-all "$@"
}
