/* The failure path. Whatever went wrong, the console and the kernel log say so; then what
 * failure_decide() chose: a shell when the initramfs has one, a reboot, power-off or halt
 * for a machine nobody watches, or a wait. PID 1 never exits: its exit panics the kernel. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emergency.h"
#include "failure.h"
#include "fileio.h"
#include "last_failure.h"
#include "log.h"
#include "paths.h"
#include "util.h"
#include "watchdog.h"


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
	ssize_t n = read_file_at(AT_FDCWD, CONSOLE_ACTIVE, buf, sizeof(buf));
	char *name;
	int fd;

	if (n <= 0)
		goto console;
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

static const int reboot_commands[] = {
	[FAILURE_REBOOT] = RB_AUTOBOOT,
	[FAILURE_POWEROFF] = RB_POWER_OFF,
	[FAILURE_HALT] = RB_HALT_SYSTEM,
};

/* Says what is about to happen and when, counts down, then reboots, powers off or halts:
 * the message reaches the console and the kernel log before the machine goes. */
static void __attribute__((noreturn))
act(const char *situation, enum failure_action action, int delay_sec, const char *because)
{
	const char *doing = failure_action_doing(action);
	char key[64] = "";

	if (because[0])
		snprintf(key, sizeof(key), " (%s)", because);
	if (delay_sec > 0)
		log_err("%s; %s in %d s%s", situation, doing, delay_sec, key);
	for (int left = delay_sec - 1; left >= 0; left--) {
		sleep(1);
		if (failure_countdown_says(left))
			log_err("%s in %d s", doing, left);
	}
	if (delay_sec > 0)
		log_err("%s now%s", doing, key);
	else
		log_err("%s; %s now%s", situation, doing, key);
	sync();
	reboot(reboot_commands[action]);
	log_err("unable to stop the machine (%s): %s; waiting forever", doing, strerror(errno));
	wait_forever();
}

void emergency_reboot(const char *reason)
{
	log_open_kmsg();
	act(reason, FAILURE_REBOOT, 0, "");
}

/* The shell, once or again and again; false when it could not start. */
static bool run_shells(const struct failure_plan *plan)
{
	bool again = plan->then == FAILURE_SHELL;
	bool ran = false;

	do {
		if (again)
			log_err("the boot stopped; starting %s (the boot cannot go on from here)",
				EMERGENCY_SHELL);
		else
			log_err("the boot stopped; starting %s (the boot cannot go on from here); when "
				"it exits: %s (%s)",
				EMERGENCY_SHELL, failure_action_doing(plan->then), plan->because);
		ran = emergency_shell() == 0;
		if (ran && again)
			sleep(1);
	} while (ran && again);
	return ran;
}

static void __attribute__((noreturn)) wait_with_message(const char *situation, bool shell)
{
	if (shell)
		log_err("%s; waiting forever (panic=N or rd.emergency=reboot to reboot instead)",
			situation);
	else
		log_err("%s; waiting forever (add a shell with earlymount initramfs --add, or reboot "
			"on failure with panic=N or rd.emergency=reboot)",
			situation);
	wait_forever();
}

/* A machine that goes down by itself after this failure (a reboot, power-off or halt, or the
 * watchdog's reset) leaves the next boot a record of it: once, before the shell or the action. */
static void keep_record(struct failure_record *record, const struct failure_plan *plan)
{
	const char *action = failure_action_word(plan->then);

	if (!action && watchdog_armed())
		action = "watchdog";
	if (!record || !action)
		return;
	COPY_STR(record->action, action);
	last_failure_keep(&last_failure_system, record);
}

void emergency_fail(const struct options *o, struct failure_record *record, const char *fmt, ...)
{
	struct failure_plan plan;
	const char *situation = "no " EMERGENCY_SHELL " in the initramfs";
	bool shell = shell_present();
	va_list ap;

	/* The failure may come before stage one finished: give kmsg a chance, else the early
	 * messages go to the console now. */
	log_open_kmsg();
	va_start(ap, fmt);
	log_vmsg(LOG_ERR, fmt, ap);
	va_end(ap);
	failure_decide(o, shell, &plan);
	keep_record(record, &plan);
	if (plan.shell_first) {
		/* run_shells() returns only after the one shell before an action, or when the
		 * shell could not start */
		situation = run_shells(&plan) ? "the shell exited" : "the shell did not start";
		if (plan.then == FAILURE_SHELL)
			plan.then = FAILURE_WAIT;
	} else if (o->no_shell && shell) {
		situation = "rd.shell=0: no shell";
	}
	if (plan.then == FAILURE_WAIT)
		wait_with_message(situation, shell);
	act(situation, plan.then, plan.delay_sec, plan.because);
}

void emergency_pause(const char *reason)
{
	log_notice("%s: starting %s; exit it to continue the boot", reason, EMERGENCY_SHELL);
	if (emergency_shell() == -ENOENT)
		log_warn("%s: no %s in the initramfs, continuing the boot", reason, EMERGENCY_SHELL);
}
