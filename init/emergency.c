/* The failure path. Whatever went wrong, the console and the kernel log say so, a shell is
 * offered when the initramfs has one, and PID 1 stays alive: its exit panics the kernel. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emergency.h"
#include "log.h"
#include "util.h"

#define CONSOLE_ACTIVE "/sys/class/tty/console/active"

static bool shell_present(void)
{
	struct stat st;

	return stat(EMERGENCY_SHELL, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111);
}

/* /dev/console cannot be a controlling terminal; the tty behind it (the last one listed as
 * active, the one the kernel writes to) can, and then job control and ^C work. */
static int open_console_tty(void)
{
	char buf[256];
	char path[300];
	int fd = open(CONSOLE_ACTIVE, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	char *name;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		goto console;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	name = strrchr(buf, ' ');
	name = name ? name + 1 : buf;
	if (!name[0])
		goto console;
	snprintf(path, sizeof(path), "/dev/%s", name);
	fd = open(path, O_RDWR | O_NOCTTY);
	if (fd >= 0)
		return fd;
console:
	return open("/dev/console", O_RDWR | O_NOCTTY);
}

static void shell_child(void)
{
	int fd;

	setsid();
	fd = open_console_tty();
	if (fd >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
	}
	ioctl(0, TIOCSCTTY, 1);
	signal(SIGINT, SIG_DFL);
	execl(EMERGENCY_SHELL, EMERGENCY_SHELL, "-i", (char *)NULL);
	_exit(127);
}

int emergency_shell(void)
{
	pid_t pid;
	int r = 0;

	if (!shell_present())
		return -ENOENT;
	pid = fork();
	if (pid < 0) {
		r = -errno;
		log_err("unable to start %s: %s", EMERGENCY_SHELL, strerror(-r));
		goto out;
	}
	if (pid == 0)
		shell_child();
	for (;;) {
		pid_t done = waitpid(-1, NULL, 0);

		if (done == pid || (done < 0 && errno == ECHILD))
			break;
	}
out:
	return r;
}

static void on_sigchld(int sig)
{
}

/* SIGCHLD is ignored by default, and an ignored signal does not end pause(). */
static void __attribute__((noreturn)) wait_forever(void)
{
	struct sigaction sa = { .sa_handler = on_sigchld };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, NULL);
	for (;;) {
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		pause();
	}
}

void emergency_fail(const char *fmt, ...)
{
	va_list ap;

	/* The failure may come before stage one finished: give kmsg a chance, else the early
	 * messages go to the console now. */
	log_open_kmsg();
	va_start(ap, fmt);
	log_vmsg(LOG_ERR, fmt, ap);
	va_end(ap);
	if (!shell_present()) {
		log_err("no %s in the initramfs; waiting forever (add a shell with earlymount "
			"initramfs --add)",
			EMERGENCY_SHELL);
		wait_forever();
	}
	for (;;) {
		log_err("the boot stopped; starting %s (the boot cannot go on from here)",
			EMERGENCY_SHELL);
		if (emergency_shell() < 0)
			wait_forever();
		sleep(1);
	}
}

void emergency_pause(const char *reason)
{
	log_notice("%s: starting %s; exit it to continue the boot", reason, EMERGENCY_SHELL);
	if (emergency_shell() == -ENOENT)
		log_warn("%s: no %s in the initramfs, continuing the boot", reason, EMERGENCY_SHELL);
}
