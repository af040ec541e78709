/* devtmpfs makes the node as the driver registers the device: a look every tick is enough,
 * and the uevent socket, when watched, wakes the wait as soon as something arrives. */
#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <sys/stat.h>

#include "ask_password.h"
#include "node_wait.h"
#include "watchdog.h"
#include "timing.h"

#define NODE_POLL_MS 200

static int find(const char *const paths[], bool block)
{
	struct stat st;
	int found = -ENOENT;

	for (int i = 0; paths[i] && found < 0; i++)
		if (stat(paths[i], &st) == 0 && (!block || S_ISBLK(st.st_mode)))
			found = i;
	return found;
}

int node_wait(const char *const paths[], bool block, int timeout_ms,
	      const struct ask_watch *watch)
{
	double until = timing_now() + timeout_ms / 1000.0;
	int found = find(paths, block);

	while (found < 0 && (timeout_ms < 0 || timing_now() < until)) {
		struct pollfd p = { watch ? watch->fd : -1, POLLIN, 0 };

		if (watchdog_poll(&p, 1, NODE_POLL_MS) > 0 && (p.revents & POLLIN))
			watch->ready(watch->data);
		found = find(paths, block);
	}
	return found;
}
