/* The kernel's uevents, read from its netlink socket. */
#include <errno.h>
#include <linux/netlink.h>
#include <string.h>
#include <sys/socket.h>

#include "uevent.h"
#include "util.h"

bool uevent_parse(char *buf, size_t len, struct uevent *ev)
{
	size_t head = strnlen(buf, len);
	bool ok = false;

	memset(ev, 0, sizeof(*ev));
	/* udev's re-broadcasts start with "libudev"; only the kernel's own events count here */
	if (head == len || !strchr(buf, '@') || startswith(buf, "libudev"))
		goto out;
	for (size_t pos = head + 1; pos < len;) {
		char *field = buf + pos;
		size_t flen = strnlen(field, len - pos);
		const char *v;

		if (pos + flen == len)
			break; /* unterminated tail: ignore it */
		if ((v = startswith(field, "ACTION=")))
			ev->action = v;
		else if ((v = startswith(field, "DEVPATH=")))
			ev->devpath = v;
		else if ((v = startswith(field, "SUBSYSTEM=")))
			ev->subsystem = v;
		else if ((v = startswith(field, "DEVTYPE=")))
			ev->devtype = v;
		else if ((v = startswith(field, "DEVNAME=")))
			ev->devname = v;
		else if ((v = startswith(field, "MODALIAS=")))
			ev->modalias = v;
		pos += flen + 1;
	}
	ok = ev->action && ev->devpath;
out:
	return ok;
}

int uevent_receive(int fd, char *buf, size_t size, struct uevent *ev, bool *lost)
{
	struct sockaddr_nl from;
	socklen_t from_len;
	ssize_t n;
	int r = 0;

	while (r == 0) {
		from_len = sizeof(from);
		n = recvfrom(fd, buf, size - 1, 0, (struct sockaddr *)&from, &from_len);
		if (n < 0 && errno == ENOBUFS)
			*lost = true;
		if (n < 0 && (errno == EINTR || errno == ENOBUFS))
			continue;
		if (n <= 0)
			break; /* EAGAIN: drained */
		buf[n] = '\0';
		if (from.nl_pid == 0 && uevent_parse(buf, (size_t)n, ev))
			r = 1;
	}
	return r;
}
