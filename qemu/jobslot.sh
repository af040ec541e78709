# A CPU slot of make's jobserver, for a script that runs VMs side by side (sourced; POSIX sh).
# Under `make -jN` a recipe holds one slot; its second VM takes another with slot_take and
# gives it back with slot_give, so the VMs and every other step of `make check` share the N
# cores instead of overloading them (a loaded host times guests out). Without a jobserver
# (the script run by hand, or make without -j) both are no-ops: the script's own QEMU_JOBS
# is the limit, as before. The recipe must be marked `+` for make to pass the jobserver on.
#
# GNU make 4.3 passes --jobserver-auth=R,W (a pipe, whose read end it made non-blocking),
# 4.4 --jobserver-auth=fifo:PATH; a slot is one byte read from it, written back when done.

slot_r="" slot_w="" slot_fifo="" slot_held=""
slot_auth=$(printf ' %s \n' "${MAKEFLAGS:-}" | sed -n 's/.* --jobserver-auth=\([^ ]*\) .*/\1/p')
case $slot_auth in
fifo:*) slot_fifo=${slot_auth#fifo:}; [ -p "$slot_fifo" ] || slot_fifo="" ;;
*,*)
	slot_r=${slot_auth%,*} slot_w=${slot_auth#*,}
	# make closes the pipe for recipes not marked `+`: then there is no jobserver here
	{ true <&"$slot_r"; } 2>/dev/null || slot_r="" ;;
esac

slot_read() {
	if [ -n "$slot_fifo" ]; then
		dd bs=1 count=1 if="$slot_fifo" iflag=nonblock 2>/dev/null
	else
		dd bs=1 count=1 2>/dev/null <&"$slot_r"
	fi
}

# Waits for a free slot (polling: the pipe does not block); prints nothing.
slot_take() {
	[ -n "$slot_r$slot_fifo" ] || return 0
	while :; do
		slot_held=$(slot_read)
		[ -z "$slot_held" ] || return 0
		sleep 0.2
	done
}

slot_give() {
	[ -n "$slot_held" ] || return 0
	if [ -n "$slot_fifo" ]; then printf %s "$slot_held" >"$slot_fifo"; else printf %s "$slot_held" >&"$slot_w"; fi
	slot_held=""
}
