/* Both sides of systemd's password agent protocol. The question is written to a temporary
 * file and renamed into place, so an agent never reads half of one. Answers are taken from
 * root alone (the socket's SO_PASSCRED credentials): an unprivileged process must not be able
 * to feed a passphrase guess loop. */
#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "fileio.h"
#include "password_agent.h"
#include "util.h"

#define ANSWER_MAX 512

static int bind_socket(struct agent_ask *a)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int one = 1;
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	if (fd < 0)
		return -errno;
	snprintf(a->socket, sizeof(a->socket), ASK_PASSWORD_DIR "/sck.%d.%ld", (int)getpid(),
		 (long)time(NULL));
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", a->socket);
	unlink(a->socket);
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	return fd;
}

/* The ask file's text: what systemd's agents read. */
static int write_question(struct agent_ask *a, const char *message)
{
	char text[1024], tmp[112];
	char clean[256];
	size_t j = 0;
	int fd, r;

	/* one line: the message ends at its colon and blanks (the consoles' prompt has them) */
	for (size_t i = 0; message[i] && message[i] != '\n' && j + 1 < sizeof(clean); i++)
		clean[j++] = message[i];
	while (j > 0 && (clean[j - 1] == ' ' || clean[j - 1] == ':'))
		j--;
	clean[j] = '\0';
	snprintf(text, sizeof(text), "[Ask]\nPID=%d\nSocket=%s\nAcceptCached=0\nEcho=0\nNotAfter=0\n"
		 "Message=%s\nIcon=drive-harddisk\nId=earlymount:%s\n", (int)getpid(), a->socket, clean, clean);
	snprintf(a->file, sizeof(a->file), ASK_PASSWORD_DIR "/ask.%d", (int)getpid());
	snprintf(tmp, sizeof(tmp), "%s.tmp", a->file);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	r = write_all(fd, text, strlen(text));
	close(fd);
	if (r == 0 && rename(tmp, a->file) < 0)
		r = -errno;
	if (r < 0)
		unlink(tmp);
	return r;
}

int agent_ask_open(const char *message, struct agent_ask *a)
{
	int r = make_directories(ASK_PASSWORD_DIR, 0755);

	a->fd = -1;
	a->file[0] = '\0';
	if (r == 0)
		r = bind_socket(a);
	if (r >= 0) {
		a->fd = r;
		r = write_question(a, message);
	}
	if (r < 0)
		agent_ask_close(a);
	return r;
}

int agent_ask_read(struct agent_ask *a, char *out, size_t size)
{
	char buf[ANSWER_MAX + 2];
	char control[CMSG_SPACE(sizeof(struct ucred))];
	struct iovec iov = { buf, sizeof(buf) - 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
			      .msg_controllen = sizeof(control) };
	struct cmsghdr *c;
	bool root = false;
	ssize_t n = recvmsg(a->fd, &msg, MSG_DONTWAIT);
	int r = 0;

	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS &&
		    c->cmsg_len >= CMSG_LEN(sizeof(struct ucred)))
			root = ((struct ucred *)(void *)CMSG_DATA(c))->uid == 0;
	if (root && n >= 1 && buf[0] == '+' && (size_t)n - 1 < size && !(msg.msg_flags & MSG_TRUNC)) {
		memcpy(out, buf + 1, (size_t)n - 1);
		out[n - 1] = '\0';
		r = (int)strlen(out);
	}
	explicit_bzero(buf, sizeof(buf));
	return r;
}

void agent_ask_close(struct agent_ask *a)
{
	if (a->file[0])
		unlink(a->file);
	if (a->fd >= 0) {
		close(a->fd);
		unlink(a->socket);
	}
	a->fd = -1;
	a->file[0] = '\0';
}

/* ---- the agent ---- */

/* The first question's socket and message, from its ask file. 0, or -ENOENT. */
static int find_question(char *socket_path, size_t socket_size, char *message, size_t message_size)
{
	char path[PATH_MAX], text[2048];
	struct dirent *e;
	DIR *d = opendir(ASK_PASSWORD_DIR);
	int r = -ENOENT;

	while (d && r < 0 && (e = readdir(d))) {
		if (strncmp(e->d_name, "ask.", 4) != 0 || strstr(e->d_name, ".tmp"))
			continue;
		snprintf(path, sizeof(path), ASK_PASSWORD_DIR "/%s", e->d_name);
		if (read_file_at(AT_FDCWD, path, text, sizeof(text)) <= 0)
			continue;
		for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
			if (startswith(l, "Socket="))
				snprintf(socket_path, socket_size, "%s", l + 7);
			else if (startswith(l, "Message="))
				snprintf(message, message_size, "%s", l + 8);
		}
		if (socket_path[0])
			r = 0;
	}
	if (d)
		closedir(d);
	return r;
}

/* Waits for an ask file to appear, up to timeout_sec. */
static void wait_for_question(int timeout_sec)
{
	int fd = inotify_init1(IN_CLOEXEC);
	char sock[PATH_MAX] = "", msg[256] = "";

	make_directories(ASK_PASSWORD_DIR, 0755);
	if (fd >= 0 && inotify_add_watch(fd, ASK_PASSWORD_DIR, IN_MOVED_TO | IN_CLOSE_WRITE) >= 0) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (find_question(sock, sizeof(sock), msg, sizeof(msg)) < 0)
			poll(&p, 1, timeout_sec * 1000);
	}
	if (fd >= 0)
		close(fd);
}

/* A line from standard input, without echo when it is a terminal. */
static int read_answer(char *out, size_t size)
{
	struct termios saved, quiet;
	bool tty = tcgetattr(STDIN_FILENO, &saved) == 0;
	ssize_t n;

	if (tty) {
		quiet = saved;
		quiet.c_lflag &= ~(tcflag_t)(ECHO | ECHOE | ECHOK | ECHONL);
		tcsetattr(STDIN_FILENO, TCSANOW, &quiet);
	}
	n = read(STDIN_FILENO, out, size - 1);
	if (tty) {
		tcsetattr(STDIN_FILENO, TCSANOW, &saved);
		fputc('\n', stderr);
	}
	if (n < 0)
		return -errno;
	out[n] = '\0';
	out[strcspn(out, "\r\n")] = '\0';
	return (int)strlen(out);
}

static int send_answer(const char *socket_path, const char *answer)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	char buf[ANSWER_MAX + 2];
	int fd = -1;
	int r = 0;

	if (copy_str(addr.sun_path, sizeof(addr.sun_path), socket_path) < 0)
		return -ENAMETOOLONG;
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	snprintf(buf, sizeof(buf), "+%s", answer);
	if (fd < 0 || sendto(fd, buf, strlen(buf), 0, (struct sockaddr *)&addr, sizeof(addr)) < 0)
		r = -errno;
	explicit_bzero(buf, sizeof(buf));
	if (fd >= 0)
		close(fd);
	return r;
}

int agent_answer_main(int timeout_sec)
{
	char socket_path[PATH_MAX] = "", message[256] = "", answer[ANSWER_MAX];
	int r;

	wait_for_question(timeout_sec);
	r = find_question(socket_path, sizeof(socket_path), message, sizeof(message));
	if (r < 0) {
		fprintf(stderr, "earlymount: nothing is asked for a passphrase (no question in %s)\n",
			ASK_PASSWORD_DIR);
		return EXIT_FAILURE;
	}
	fprintf(stderr, "%s: ", message);
	r = read_answer(answer, sizeof(answer));
	if (r >= 0)
		r = send_answer(socket_path, answer);
	explicit_bzero(answer, sizeof(answer));
	if (r < 0) {
		fprintf(stderr, "earlymount: unable to answer (%s)\n", strerror(-r));
		return EXIT_FAILURE;
	}
	fprintf(stderr, "earlymount: sent; the boot goes on if it was right\n");
	return EXIT_SUCCESS;
}
