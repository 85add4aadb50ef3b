# shellcheck shell=sh disable=SC2034 # SONDE_* are for the cases
# lib.sh: helpers for the VM cases (sourced by /init's case runner; busybox ash, no bash).
#
# A case is a plain sh script in tests/vm/cases/. It runs in its own shell with this file
# already sourced and its cwd set to a fresh scratch directory ($CASE_TMP). It passes when it
# ran at least one check, none of them failed, and the script itself did not exit non-zero.
#
#   run_sonde ARGS...          run `sonde ARGS...`, which must finish by itself within
#                              SONDE_TIMEOUT seconds (default 60; else the case fails); sets
#                              SONDE_STATUS, SONDE_OUT, SONDE_ERR (also in the files
#                              $SONDE_OUT_FILE, $SONDE_ERR_FILE) and SONDE_CMD (for reports)
#   run_sonde_for SECS ARGS... run sonde for SECS seconds, then SIGTERM it as Ctrl-C would
#                              (END runs, maps print); the same variables
#   run_cmd ARGS...            like run_sonde for any other command
#   start_sonde_until TAG 'ERE' ARGS...
#                              start `sonde ARGS...` in the background (stdout in out.TAG,
#                              stderr in err.TAG, pid in $BG_PID) and wait up to 60 s until a
#                              stderr line matches ERE (`^Tracing`); fails the case if none does
#   expect_status N            last command's exit status is N
#   expect_line 'exact line'   stdout has this exact line
#   expect_no_line 'line'      stdout does not have this exact line
#   expect_match 'ERE'         some stdout line matches the extended regex
#   expect_stderr_match 'ERE'  some stderr line matches the extended regex
#   expect_map '@name' N       stdout has `@name: N`
#   map_value '@name'          prints the number of the `@name: 123` line in stdout (status 1 if none)
#   expect_file PATH           PATH exists (any kind of file)
#   expect_nonempty PATH       PATH is a file with at least one byte (works for tracefs/proc files)
#   check 'what' CMD ARGS...   CMD ARGS... succeeds (a generic check)
#   fail 'why'                 marks the case failed and prints why, with the last command,
#                              its status, stdout and stderr
#   note 'text'                prints an informational line in the case's output

: "${SONDE_TIMEOUT:=60}"
CASE_FAILED=0
CASE_CHECKS=0
SONDE_CMD=''
SONDE_STATUS=''
SONDE_OUT=''
SONDE_ERR=''
SONDE_TIMED_OUT=0
SONDE_SHOWN=0
SONDE_OUT_FILE="${CASE_TMP:-/tmp}/stdout"
SONDE_ERR_FILE="${CASE_TMP:-/tmp}/stderr"
: >"$SONDE_OUT_FILE"
: >"$SONDE_ERR_FILE"

# Quote each argument so the reported command can be pasted into a shell.
_vm_quote() {
	_q=''
	for _a in "$@"; do
		case "$_a" in
		'' | *[!A-Za-z0-9_./:=@%+,-]*)
			_a="'$(printf '%s' "$_a" | sed "s/'/'\\\\''/g")'"
			;;
		esac
		_q="${_q:+$_q }$_a"
	done
	printf '%s' "$_q"
}

note() {
	printf 'note: %s\n' "$*"
}

# Shows the last command and what it printed, once per command.
_vm_show_last() {
	if [ -n "$SONDE_CMD" ] && [ "$SONDE_SHOWN" = 0 ]; then
		SONDE_SHOWN=1
		printf '  command: %s\n' "$SONDE_CMD"
		printf '  status:  %s%s\n' "$SONDE_STATUS" "$([ "$SONDE_TIMED_OUT" = 1 ] && echo " (stopped by the timeout)")"
		printf '  --- stdout ---\n'
		sed 's/^/  | /' "$SONDE_OUT_FILE"
		printf '  --- stderr ---\n'
		sed 's/^/  | /' "$SONDE_ERR_FILE"
		printf '  --------------\n'
	fi
}

fail() {
	CASE_FAILED=1
	printf 'FAIL: %s\n' "$*"
	_vm_show_last
	return 0
}

_vm_check() {
	CASE_CHECKS=$((CASE_CHECKS + 1))
	return 0
}

# _vm_run SECS ARGS...: run a command, SIGTERM after SECS (SIGKILL 5 s later), capture everything.
_vm_run() {
	_secs="$1"
	shift
	SONDE_CMD="$(_vm_quote "$@")"
	SONDE_TIMED_OUT=0
	SONDE_SHOWN=0
	_t0="$(cut -d' ' -f1 /proc/uptime)"
	timeout -k 5 "$_secs" "$@" >"$SONDE_OUT_FILE" 2>"$SONDE_ERR_FILE" </dev/null
	SONDE_STATUS=$?
	_t1="$(cut -d' ' -f1 /proc/uptime)"
	# busybox timeout execs the command and signals it, so the status is the command's own
	# (sonde exits 0 after a clean SIGTERM stop): tell a timeout by the clock.
	if awk -v a="$_t0" -v b="$_t1" -v t="$_secs" 'BEGIN { exit !(b - a >= t) }'; then
		SONDE_TIMED_OUT=1
	fi
	SONDE_OUT="$(cat "$SONDE_OUT_FILE")"
	SONDE_ERR="$(cat "$SONDE_ERR_FILE")"
	printf 'ran (%ss, status %s%s): %s\n' "$(awk -v a="$_t0" -v b="$_t1" 'BEGIN { printf "%.2f", b - a }')" \
		"$SONDE_STATUS" "$([ "$SONDE_TIMED_OUT" = 1 ] && echo ", stopped after ${_secs}s")" "$SONDE_CMD"
	return 0
}

# run_cmd ARGS...: the command must finish by itself within SONDE_TIMEOUT seconds.
run_cmd() {
	_vm_run "$SONDE_TIMEOUT" "$@"
	if [ "$SONDE_TIMED_OUT" = 1 ]; then
		_vm_check
		fail "did not finish within ${SONDE_TIMEOUT}s (SONDE_TIMEOUT)"
	fi
	return 0
}

run_sonde() {
	run_cmd sonde "$@"
}

start_sonde_until() {
	_tag="$1"
	_re="$2"
	shift 2
	: >"out.$_tag"
	: >"err.$_tag"
	sonde "$@" >"out.$_tag" 2>"err.$_tag" &
	BG_PID=$!
	_n=0
	while ! grep -qE "$_re" "err.$_tag" && [ $_n -lt 600 ] && kill -0 "$BG_PID" 2>/dev/null; do
		sleep 0.1
		_n=$((_n + 1))
	done
	_vm_check
	grep -qE "$_re" "err.$_tag" || fail "sonde $(_vm_quote "$@") never printed /$_re/ ($(kill -0 "$BG_PID" 2>/dev/null && echo running || echo exited)): $(cat "err.$_tag")"
	return 0
}

# run_sonde_for SECS ARGS...: trace for SECS seconds, then stop sonde with SIGTERM as Ctrl-C
# would (END runs, maps print). Stopping that way is expected, not a failure.
run_sonde_for() {
	_for="$1"
	shift
	_vm_run "$_for" sonde "$@"
	return 0
}

expect_status() {
	_vm_check
	if [ "$SONDE_STATUS" != "$1" ]; then
		fail "exit status $SONDE_STATUS, expected $1"
	fi
}

expect_line() {
	_vm_check
	if ! grep -qFx -e "$1" "$SONDE_OUT_FILE"; then
		fail "stdout has no line '$1'"
	fi
}

expect_no_line() {
	_vm_check
	if grep -qFx -e "$1" "$SONDE_OUT_FILE"; then
		fail "stdout has the line '$1', which it should not"
	fi
}

expect_match() {
	_vm_check
	if ! grep -qE -e "$1" "$SONDE_OUT_FILE"; then
		fail "no stdout line matches /$1/"
	fi
}

expect_stderr_match() {
	_vm_check
	if ! grep -qE -e "$1" "$SONDE_ERR_FILE"; then
		fail "no stderr line matches /$1/"
	fi
}

map_value() {
	awk -v p="$1: " '
		index($0, p) == 1 {
			v = substr($0, length(p) + 1)
			if (v ~ /^-?[0-9]+$/) { print v; found = 1; exit }
		}
		END { exit !found }
	' "$SONDE_OUT_FILE"
}

expect_map() {
	_vm_check
	_v="$(map_value "$1")" || _v=''
	if [ -z "$_v" ]; then
		fail "stdout has no line '$1: <number>' (expected $1: $2)"
	elif [ "$_v" != "$2" ]; then
		fail "$1 is $_v, expected $2"
	fi
}

expect_file() {
	_vm_check
	if [ ! -e "$1" ]; then
		fail "$1 does not exist"
	fi
}

# tracefs and procfs files report size 0, so `test -s` cannot be used: read a byte.
expect_nonempty() {
	_vm_check
	if [ ! -e "$1" ]; then
		fail "$1 does not exist"
	elif [ "$(head -c 1 "$1" 2>/dev/null | wc -c)" -eq 0 ]; then
		fail "$1 is empty"
	fi
}

check() {
	_what="$1"
	shift
	_vm_check
	if ! "$@"; then
		fail "$_what (failed: $(_vm_quote "$@"))"
	fi
}

# The case's verdict, whichever way its shell ends (end of script or an explicit `exit`):
# a non-zero exit, a failed check, or no check at all make it fail.
_vm_on_exit() {
	_rc=$?
	trap - EXIT
	if [ "$_rc" -ne 0 ]; then
		printf 'FAIL: the case script exited with status %s\n' "$_rc"
		exit 1
	fi
	if [ "$CASE_CHECKS" -eq 0 ]; then
		printf 'FAIL: the case checked nothing (call expect_* or check)\n'
		exit 1
	fi
	if [ "$CASE_FAILED" -ne 0 ]; then
		exit 1
	fi
	exit 0
}
trap _vm_on_exit EXIT
