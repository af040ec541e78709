/* The kernel's uevents, as they come from its netlink socket: no udev at boot. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* The fields of one uevent earlymount reads; each points into the buffer it came in. */
struct uevent {
	const char *action;
	const char *devpath;
	const char *subsystem;
	const char *devtype;
	const char *devname;
	const char *modalias;
};

/* Splits "ACTION@DEVPATH\0KEY=VALUE\0…" in place. false for what is not a kernel uevent. */
bool uevent_parse(char *buf, size_t len, struct uevent *ev);
/* Receives one kernel uevent into buf. 1 with ev filled, 0 when the socket is drained;
 * *lost is set when the kernel dropped events because the buffer was full. */
int uevent_receive(int fd, char *buf, size_t size, struct uevent *ev, bool *lost);
