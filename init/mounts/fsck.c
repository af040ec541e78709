/* Runs a filesystem's checker before its read-write mount: the program the image holds, its
 * output logged as it comes and its last lines kept for the message, its exit code judged by
 * fsck_verdict(). Effect layer; the rules are in fsck_rules.c. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "child.h"
#include "execute.h"
#include "fileio.h"
#include "fsck.h"
#include "log.h"
#include "util.h"

/* Where the image keeps checkers: `earlymount initramfs` puts them in /usr/sbin. */
static const char *const fsck_dirs[] = { "/usr/sbin", "/sbin", "/usr/bin", "/bin" };

/* A checker answering every question with -n can print a line per inode: the console gets
 * this many, the tail is kept whatever the count. */
#define LINES_LOGGED 200
#define ARGV_MAX 8

struct output {
	const char *program;
	unsigned logged;
	char tail[FSCK_TAIL_LINES][CHILD_LINE_MAX];
	unsigned n_lines;
};

static int find_checker(const struct fsck_checker *c, char *out, size_t size)
{
	int r = -ENOENT;

	for (size_t p = 0; c->programs[p] && r < 0; p++)
		for (size_t d = 0; d < ARRAY_SIZE(fsck_dirs) && r < 0; d++)
			if (snprintf(out, size, "%s/%s", fsck_dirs[d], c->programs[p]) < (int)size &&
			    access(out, X_OK) == 0)
				r = 0;
	return r;
}

/* A line of the checker's: logged, and kept for the tail. For child_run_lines(). */
static void output_line(const char *line, void *data)
{
	struct output *o = data;

	if (o->logged < LINES_LOGGED)
		log_info("%s: %s", o->program, line);
	else if (o->logged == LINES_LOGGED)
		log_info("%s: … (its further lines are not shown)", o->program);
	o->logged++;
	COPY_STR(o->tail[o->n_lines % FSCK_TAIL_LINES], line);
	o->n_lines++;
}

static void output_tail(const struct output *o, char *out, size_t size)
{
	unsigned first = o->n_lines > FSCK_TAIL_LINES ? o->n_lines - FSCK_TAIL_LINES : 0;
	size_t used = 0;

	out[0] = '\0';
	for (unsigned i = first; i < o->n_lines && used < size; i++)
		used += (size_t)snprintf(out + used, size - used, "%s%s", i > first ? "\n" : "",
					 o->tail[i % FSCK_TAIL_LINES]);
}

int fsck_run(const char *device, const char *fstype, const char *options,
	     struct fsck_result *result)
{
	static struct output o;
	const struct fsck_checker *c = fsck_checker_for(fstype);
	const char *argv[ARGV_MAX];
	char words[64];
	int r = c ? 0 : -EOPNOTSUPP;

	memset(result, 0, sizeof(*result));
	if (r == 0)
		r = find_checker(c, result->checker, sizeof(result->checker));
	if (r == 0)
		r = fsck_argv(c, result->checker, options, device, words, sizeof(words), argv,
			      ARRAY_SIZE(argv));
	if (r < 0)
		goto out;
	memset(&o, 0, sizeof(o));
	o.program = strrchr(result->checker, '/') + 1;
	r = child_run_lines(&(struct child_spec){ .argv = argv, .exec_failed = 127 }, output_line, &o);
	if (r == -EINTR || r >= 0) {
		result->status = r < 0 ? -1 : r;
		result->verdict = fsck_verdict(result->status);
		output_tail(&o, result->tail, sizeof(result->tail));
		r = 0;
	}
out:
	return r;
}

static int fsck_mark_root(void)
{
	int fd;
	int r = make_directories(FSCK_ROOT_DIR, 0755);

	if (r < 0)
		goto out;
	fd = open(FSCK_ROOT_FLAG, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		r = -errno;
	else
		close(fd);
out:
	return r;
}

/* The checker's last lines on one line, for the message the boot stops with. */
static void tail_one_line(const char *tail, char *out, size_t size)
{
	size_t o = 0;

	for (size_t i = 0; tail[i] && o + 4 < size; i++) {
		if (tail[i] == '\n') {
			memcpy(out + o, " | ", 3);
			o += 3;
		} else {
			out[o++] = tail[i];
		}
	}
	out[o] = '\0';
}

static void not_checked(int r, const char *device, const char *fstype, const char *target)
{
	if (r == -EOPNOTSUPP)
		log_info("%s (%s) not checked before its mount on %s: earlymount runs no checker for %s",
			 device, fstype[0] ? fstype : "no filesystem recognised", target,
			 fstype[0] ? fstype : "it");
	else
		log_info("%s (%s) not checked before its read-write mount on %s: the initramfs holds no "
			 "checker for %s (earlymount initramfs adds e2fsck and fsck.fat unless --no-fsck)",
			 device, fstype, target, fstype);
}

int fsck_check(const char *device, const char *fstype, const char *target, const char *options,
	       char *why, size_t why_size)
{
	static struct fsck_result res;
	char last[384];
	int r = fsck_run(device, fstype, options, &res);

	if (r == -EOPNOTSUPP || r == -ENOENT) {
		not_checked(r, device, fstype, target);
		r = 0;
		goto out;
	}
	if (r < 0) {
		snprintf(why, why_size, "unable to run %s on %s before mounting it on %s: %s",
			 res.checker, device, target, strerror(-r));
		goto out;
	}
	tail_one_line(res.tail, last, sizeof(last));
	switch (res.verdict) {
	case FSCK_VERDICT_CLEAN:
		log_info("%s (%s, for %s): checked, clean", device, fstype, target);
		break;
	case FSCK_VERDICT_REPAIRED:
		log_notice("%s (%s, for %s): %s repaired errors (exit 1); the boot goes on", device,
			   fstype, target, res.checker);
		break;
	case FSCK_VERDICT_REBOOT:
		r = FSCK_REBOOT;
		snprintf(why, why_size, "%s (%s, for %s): %s repaired errors and asks for a reboot "
			 "(exit %d)", device, fstype, target, res.checker, res.status);
		goto out;
	case FSCK_VERDICT_FAILED:
	default:
		r = -EUCLEAN;
		/* %.0d prints nothing for 0: "(it was killed)", else "(exit N)" */
		snprintf(why, why_size, "the filesystem on %s (%s, for %s) has errors %s did not "
			 "repair (%s%.0d)%s%s — repair it from a rescue shell: %s -y %s, or boot with "
			 "fsck.repair=yes", device, fstype, target, res.checker,
			 res.status < 0 ? "it was killed" : "exit ", res.status < 0 ? 0 : res.status,
			 last[0] ? "; its last lines: " : "", last, res.checker, device);
		goto out;
	}
	if (streq(target, SYSROOT)) {
		r = fsck_mark_root();
		if (r < 0)
			log_warn("unable to write %s: %s", FSCK_ROOT_FLAG, strerror(-r));
		else
			log_info("the root was checked: %s tells the real init", FSCK_ROOT_FLAG);
		r = 0;
	}
out:
	return r;
}
