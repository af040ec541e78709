# A CPU slot for each VM of a script that runs VMs side by side (sourced; POSIX sh). Under
# `make -jN` a recipe holds one job of make's jobserver; a VM of it runs on that job when it
# is free, else on another job taken from the jobserver, so the VMs and every other step of
# `make check` share the N cores instead of overloading them (a loaded host times guests out)
# and none waits while its own recipe's job is idle. Without a jobserver (the script run by
# hand, or make without -j) both calls are no-ops: the script's own QEMU_JOBS is the limit,
# as before. The recipe must be marked `+` for make to pass the jobserver on.
#
# GNU make 4.3 passes --jobserver-auth=R,W (a pipe, whose read end it made non-blocking),
# 4.4 --jobserver-auth=fifo:PATH; a job is one byte read from it, written back when done. The
# recipe's own job is a lock file (EARLYMOUNT_SLOT_OWN, shared with the scripts it runs; made
# by tests/step, or here), held with flock on fd 5 by the VM that has it.

slot_r="" slot_w="" slot_fifo="" slot_held=""
slot_auth=$(printf ' %s \n' "${MAKEFLAGS:-}" | sed -n 's/.* --jobserver-auth=\([^ ]*\) .*/\1/p')
case $slot_auth in
fifo:*) slot_fifo=${slot_auth#fifo:}; [ -p "$slot_fifo" ] || slot_fifo="" ;;
*,*)
	slot_r=${slot_auth%,*} slot_w=${slot_auth#*,}
	# make closes the pipe for recipes not marked `+`: then there is no jobserver here
	{ true <&"$slot_r"; } 2>/dev/null || slot_r="" ;;
esac
if [ -n "$slot_r$slot_fifo" ] && [ -z "${EARLYMOUNT_SLOT_OWN:-}" ]; then
	EARLYMOUNT_SLOT_OWN=$(mktemp "${TMPDIR:-/tmp}/earlymount-slot.XXXXXX")
	export EARLYMOUNT_SLOT_OWN
fi

slot_read() {
	if [ -n "$slot_fifo" ]; then
		dd bs=1 count=1 if="$slot_fifo" iflag=nonblock 2>/dev/null
	else
		dd bs=1 count=1 2>/dev/null <&"$slot_r"
	fi
}

# The recipe's own job, when no other VM of it has it.
slot_take_own() {
	exec 5>>"$EARLYMOUNT_SLOT_OWN" && flock -n 5 && return 0
	exec 5>&-
	return 1
}

# Waits for a job, the recipe's own or one of the jobserver's (polling: the pipe does not
# block); prints nothing.
slot_take() {
	[ -n "$slot_r$slot_fifo" ] || return 0
	while :; do
		if slot_take_own; then slot_held=own; return 0; fi
		slot_held=$(slot_read)
		[ -z "$slot_held" ] || return 0
		sleep 0.2
	done
}

slot_give() {
	case $slot_held in
	"") ;;
	own) flock -u 5; exec 5>&- ;;
	*) if [ -n "$slot_fifo" ]; then printf %s "$slot_held" >"$slot_fifo"; else printf %s "$slot_held" >&"$slot_w"; fi ;;
	esac
	slot_held=""
}
