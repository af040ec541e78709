/* rtnetlink for the interface a boot configures: a dump of the links there, then their
 * RTM_NEWLINK events as drivers bind and carriers come, on one socket. */
#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "link.h"
#include "timing.h"
#include "util.h"
#include "watchdog.h"

/* <linux/if.h>'s, which <net/if.h> does not have and cannot be included beside */
#ifndef IFF_LOWER_UP
#define IFF_LOWER_UP 0x10000
#endif

struct link_watch {
	const char *want;   /* NULL: any Ethernet interface */
	char name[IFNAMSIZ];
	bool seen;          /* the interface is there */
	bool set_up;        /* asked up once */
	bool carrier;
	char *found;        /* the interfaces seen, for the message */
	size_t found_size;
};

static int netlink_open(void)
{
	struct sockaddr_nl addr = { .nl_family = AF_NETLINK, .nl_groups = RTMGRP_LINK };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_ROUTE);

	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	return fd;
}

static int request_dump(int fd)
{
	struct {
		struct nlmsghdr h;
		struct ifinfomsg i;
	} req = {
		.h = { .nlmsg_len = sizeof(req), .nlmsg_type = RTM_GETLINK,
		       .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP, .nlmsg_seq = 1 },
		.i = { .ifi_family = AF_UNSPEC },
	};

	return send(fd, &req, sizeof(req), 0) < 0 ? -errno : 0;
}

/* IFF_UP through the classic ioctl: one call, no reply to wait for. */
static int set_up(const char *name)
{
	struct ifreq ifr = { 0 };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int r = 0;

	if (fd < 0)
		return -errno;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
		r = -errno;
	ifr.ifr_flags |= IFF_UP;
	if (r == 0 && ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
		r = -errno;
	close(fd);
	return r;
}

static void note_found(struct link_watch *w, const char *name)
{
	size_t used = strlen(w->found);

	if (!strstr(w->found, name))
		snprintf(w->found + used, w->found_size - used, "%s%s", used ? ", " : "", name);
}

static void on_link(struct link_watch *w, const struct ifinfomsg *info, const char *name)
{
	bool wanted = w->want ? streq(name, w->want)
			      : info->ifi_type == ARPHRD_ETHER && !(info->ifi_flags & IFF_LOOPBACK) &&
					(!w->seen || streq(name, w->name));

	if (!(info->ifi_flags & IFF_LOOPBACK))
		note_found(w, name);
	if (!wanted)
		return;
	w->seen = true;
	snprintf(w->name, sizeof(w->name), "%s", name);
	w->carrier = (info->ifi_flags & IFF_UP) && (info->ifi_flags & IFF_LOWER_UP);
}

static void on_message(struct link_watch *w, const struct nlmsghdr *h)
{
	const struct ifinfomsg *info = NLMSG_DATA(h);
	int len = (int)h->nlmsg_len - (int)NLMSG_LENGTH(sizeof(*info));
	const char *name = NULL;

	if (h->nlmsg_type != RTM_NEWLINK || len < 0)
		return;
	for (const struct rtattr *a = IFLA_RTA(info); RTA_OK(a, len); a = RTA_NEXT(a, len))
		if (a->rta_type == IFLA_IFNAME && RTA_PAYLOAD(a) > 0 && RTA_PAYLOAD(a) <= IFNAMSIZ &&
		    ((const char *)RTA_DATA(a))[RTA_PAYLOAD(a) - 1] == '\0')
			name = RTA_DATA(a);
	if (name)
		on_link(w, info, name);
}

/* Reads what the socket has: 0, or -errno. */
static int drain(int fd, struct link_watch *w)
{
	char buf[16384] __attribute__((aligned(__alignof__(struct nlmsghdr))));
	ssize_t n;

	while ((n = recv(fd, buf, sizeof(buf), 0)) > 0) {
		int len = (int)n;

		for (const struct nlmsghdr *h = (const void *)buf; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len))
			on_message(w, h);
	}
	/* an overrun loses events, not state: ask for the links again */
	if (n < 0 && errno == ENOBUFS)
		return request_dump(fd);
	return n < 0 && errno != EAGAIN ? -errno : 0;
}

int link_wait_up(const char *want, int timeout_ms, const struct link_side_watch *side,
		 char *name, size_t name_size, char *found, size_t found_size)
{
	struct link_watch w = { .want = want && want[0] ? want : NULL, .found = found,
				.found_size = found_size };
	double deadline = timing_now() + timeout_ms / 1000.0;
	int fd = netlink_open();
	int r = fd < 0 ? fd : request_dump(fd);

	found[0] = '\0';
	while (r == 0 && !w.carrier) {
		struct pollfd p[2] = { { .fd = fd, .events = POLLIN },
				       { .fd = side ? side->fd : -1, .events = POLLIN } };
		int left = (int)((deadline - timing_now()) * 1000);

		if (left <= 0) {
			r = w.seen ? -ENOLINK : -ENODEV;
			break;
		}
		if (watchdog_poll(p, 2, left) < 0 && errno != EINTR) {
			r = -errno;
			break;
		}
		if (side && (p[1].revents & POLLIN))
			side->ready(side->data);
		r = drain(fd, &w);
		if (r == 0 && w.seen && !w.set_up) {
			w.set_up = true;
			r = set_up(w.name);
		}
	}
	if (w.seen)
		snprintf(name, name_size, "%s", w.name);
	if (fd >= 0)
		close(fd);
	return r;
}
