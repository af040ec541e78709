/* The passphrase prompt. The kernel lists the consoles it writes to in
 * /sys/class/tty/console/active; QEMU tests type on the serial one or on a USB keyboard on the
 * VT (qemu/scenarios/luks-usb-keyboard), people on the VT, and either must work, so the
 * prompt goes to all of them and the first line typed wins. Echo is off and the line
 * discipline stays canonical, so the kernel handles backspace and the line arrives whole.
 * While it waits, the caller's watch (the uevents) is served: a keyboard may come late. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "ask_password.h"
#include "fileio.h"
#include "log.h"
#include "password_agent.h"
#include "paths.h"
#include "util.h"
#include "watchdog.h"

#define MAX_CONSOLES 8

struct console {
	int fd;
	struct termios saved;
	bool restore;
};

struct consoles {
	struct console c[MAX_CONSOLES];
	size_t n;
};

static void console_add(struct consoles *cs, const char *path)
{
	struct console *c = &cs->c[cs->n];
	struct termios quiet;

	if (cs->n == MAX_CONSOLES)
		return;
	c->fd = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
	if (c->fd < 0)
		return;
	c->restore = tcgetattr(c->fd, &c->saved) == 0;
	if (c->restore) {
		quiet = c->saved;
		quiet.c_lflag &= ~(tcflag_t)(ECHO | ECHOE | ECHOK | ECHONL);
		quiet.c_lflag |= ICANON;
		tcsetattr(c->fd, TCSANOW, &quiet);
		/* what was typed before the question is not its answer */
		tcflush(c->fd, TCIFLUSH);
	}
	cs->n++;
}

static void consoles_open(struct consoles *cs)
{
	char list[256];
	char path[64];

	(void)read_file_at(AT_FDCWD, CONSOLE_ACTIVE, list, sizeof(list)); /* none: the console */
	cs->n = 0;
	for (char *save = NULL, *w = strtok_r(list, " \n", &save); w; w = strtok_r(NULL, " \n", &save)) {
		snprintf(path, sizeof(path), "/dev/%s", w);
		console_add(cs, path);
	}
	if (cs->n == 0)
		console_add(cs, "/dev/console");
}

static void consoles_close(struct consoles *cs)
{
	for (size_t i = 0; i < cs->n; i++) {
		if (cs->c[i].restore)
			tcsetattr(cs->c[i].fd, TCSANOW, &cs->c[i].saved);
		/* the newline the user typed was not echoed */
		(void)!write(cs->c[i].fd, "\n", 1);
		close(cs->c[i].fd);
	}
	cs->n = 0;
}

static void consoles_write(const struct consoles *cs, const char *text)
{
	for (size_t i = 0; i < cs->n; i++)
		(void)!write(cs->c[i].fd, text, strlen(text));
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Reads what a console has: a whole line in canonical mode, or the rest of a long one. 1 with
 * the line in out, 0 for nothing yet, -E2BIG for a line too long (read to its end). */
static int read_line(int fd, char *out, size_t size, bool *overlong)
{
	ssize_t n = read(fd, out, size - 1);
	int r = 0;

	if (n < 0)
		goto out;
	out[n] = '\0';
	if (n > 0 && out[n - 1] == '\n') {
		out[n - 1] = '\0';
		r = *overlong ? -E2BIG : 1;
		*overlong = false;
	} else if (n == 0) {
		r = *overlong ? -E2BIG : 1; /* ^D: an empty line */
	} else {
		*overlong = true;
	}
out:
	return r;
}

int ask_password(const char *prompt, int timeout_sec, const struct ask_watch *watch, char *out,
		 size_t size)
{
	struct consoles cs;
	struct agent_ask agent;
	struct pollfd fds[MAX_CONSOLES + 2];
	bool watching = watch && watch->ready && watch->fd >= 0;
	long long deadline = timeout_sec > 0 ? now_ms() + (long long)timeout_sec * 1000 : -1;
	bool overlong[MAX_CONSOLES] = { false };
	size_t alive;
	int r = -ENOTTY;

	consoles_open(&cs);
	if (cs.n == 0)
		goto out;
	consoles_write(&cs, prompt);
	for (size_t i = 0; i < cs.n; i++)
		fds[i] = (struct pollfd){ .fd = cs.c[i].fd, .events = POLLIN };
	/* after the consoles: a line typed counts before the watch's work */
	fds[cs.n] = (struct pollfd){ .fd = watching ? watch->fd : -1, .events = POLLIN };
	/* and an agent's answer (over SSH: `/init answer`) as well as a line typed */
	if (agent_ask_open(prompt, &agent) < 0)
		log_debug("no password agent can answer: unable to put the question in %s", ASK_PASSWORD_DIR);
	fds[cs.n + 1] = (struct pollfd){ .fd = agent.fd, .events = POLLIN };
	alive = cs.n;
	for (r = 0; r == 0;) {
		long long left = deadline < 0 ? -1 : deadline - now_ms();
		int ready;

		if (alive == 0) {
			r = -ENOTTY;
			break;
		}
		if (deadline >= 0 && left <= 0) {
			r = -ETIMEDOUT;
			break;
		}
		ready = watchdog_poll(fds, cs.n + 2, left < 0 ? -1 : (int)left);
		if (ready < 0 && errno != EINTR)
			r = -errno;
		for (size_t i = 0; ready > 0 && r == 0 && i < cs.n; i++) {
			if (fds[i].revents & POLLIN) {
				r = read_line(fds[i].fd, out, size, &overlong[i]);
			} else if (fds[i].revents & (POLLHUP | POLLERR | POLLNVAL)) {
				/* a console that hung up would wake every poll: ask the others */
				fds[i].fd = -1;
				alive--;
			}
		}
		if (ready > 0 && r == 0 && (fds[cs.n + 1].revents & POLLIN) &&
		    (r = agent_ask_read(&agent, out, size)) > 0) {
			consoles_write(&cs, "(answered by a password agent)");
			log_info("the passphrase came from a password agent");
			r = 1;
		}
		/* POLLERR too: a uevent socket that overflowed says so once, and is read again */
		if (ready > 0 && r == 0 && (fds[cs.n].revents & (POLLIN | POLLERR)))
			watch->ready(watch->data);
		else if (fds[cs.n].revents & POLLNVAL)
			fds[cs.n].fd = -1;
	}
	if (r == 1)
		r = (int)strlen(out);
	else
		explicit_bzero(out, size);
	agent_ask_close(&agent);
out:
	consoles_close(&cs);
	return r;
}
