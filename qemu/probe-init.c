/* The "real init" of the boot-test images: reports what earlymount handed over (pid, uptime,
 * command line, mounts, active swap, earlymount's timings, argv, the file-hierarchy skeleton)
 * and the processes it inherited from the initramfs on the console, then powers off. With probe.write on the kernel command line it first reports the
 * markers a previous boot left in /, /etc and /var, then writes its own there (the volatile
 * tests: the disk must not change, a second boot must see nothing). With probe.hibernate it then
 * hibernates instead of powering off, with a random marker in its memory: a boot that resumes
 * the image continues in it and prints the marker again, then powers off. It shows the record
 * of a failed boot earlymount passed on, and whether its EFI variable is still there.
 * Depends on nothing but the kernel: it mounts /proc itself, and says so, when it is absent. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#define BEGIN "=== earlymount-probe begin ===\n"
#define END "=== earlymount-probe end ===\n"
/* core/failure_record.h's name and vendor GUID */
#define LAST_FAILURE_EFIVAR \
	"/sys/firmware/efi/efivars/EarlymountLastFailure-2bc4121b-0f83-482d-9d5d-8f1df7ec0dfa"

/* The whole report goes out in one write so kernel messages cannot split it. */
static char report[128 * 1024];
static size_t report_len;

static void emit(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void emit(const char *fmt, ...)
{
	size_t room = sizeof(report) - report_len;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(report + report_len, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		report_len += (size_t)n < room ? (size_t)n : room - 1;
}

static void write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		buf += n;
		len -= (size_t)n;
	}
}

/* Reads a small file whole into buf (terminated); -errno on failure. */
static int read_file(const char *path, char *buf, size_t size)
{
	size_t len = 0;
	int fd, r = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (len < size - 1) {
		ssize_t n = read(fd, buf + len, size - 1 - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			break;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	close(fd);
	return r;
}

/* fd 1 is the kernel's /dev/console when the kernel or earlymount started us; reopen it
 * if it is missing, with a devtmpfs of our own as the last resort. */
static void console_ensure(void)
{
	int fd;

	if (fcntl(1, F_GETFD) >= 0)
		return;
	fd = open("/dev/console", O_WRONLY | O_NOCTTY);
	if (fd < 0 && mount("devtmpfs", "/dev", "devtmpfs", 0, NULL) == 0) {
		emit("note: /dev was not mounted; the probe mounted a devtmpfs for its console\n");
		fd = open("/dev/console", O_WRONLY | O_NOCTTY);
	}
	if (fd >= 0 && fd != 1) {
		dup2(fd, 1);
		close(fd);
	}
}

static void proc_ensure(void)
{
	if (access("/proc/self/mountinfo", R_OK) == 0)
		return;
	emit("note: /proc was not mounted; the probe mounted it\n");
	mkdir("/proc", 0555);
	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
		emit("note: unable to mount proc on /proc: %s\n", strerror(errno));
}

/* Kernel messages that land in the middle of the report (a mouse found late, say) would cut
 * its lines apart for the harness: from here on the console shows only emergencies, which
 * a panic still is. */
static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : write(fd, text, strlen(text));
	int r = n == (ssize_t)strlen(text) ? 0 : -errno;

	if (fd >= 0)
		close(fd);
	return r;
}

/* "1" keeps the report in one piece; "7" shows the kernel's PM: lines while it hibernates. */
static int kernel_console_level(const char *level)
{
	return write_file("/proc/sys/kernel/printk", level);
}

static void kernel_console_quiet(void)
{
	int r = kernel_console_level("1");

	if (r < 0)
		emit("note: unable to quiet the kernel's console: %s\n", strerror(-r));
}

/* The image goes to the swap earlymount enabled. "shutdown" powers off once it is written
 * (QEMU then exits), whatever the platform would do for S4. The marker lives only here, in
 * memory: after a resume it is the one printed before, after a fresh boot a new one. */
static void hibernate(void)
{
	unsigned char bytes[8] = { 0 };
	char marker[2 * sizeof(bytes) + 1];
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	int r;

	if (fd < 0 || read(fd, bytes, sizeof(bytes)) != (ssize_t)sizeof(bytes))
		dprintf(1, "probe: unable to read /dev/urandom: %s\n", strerror(errno));
	if (fd >= 0)
		close(fd);
	for (size_t i = 0; i < sizeof(bytes); i++)
		snprintf(marker + 2 * i, 3, "%02x", bytes[i]);
	dprintf(1, "probe: hibernating, marker %s\n", marker);
	sync();
	kernel_console_level("7");
	r = write_file("/sys/power/disk", "shutdown");
	if (r < 0)
		dprintf(1, "probe: unable to write shutdown to /sys/power/disk: %s\n", strerror(-r));
	r = write_file("/sys/power/state", "disk");
	kernel_console_quiet();
	if (r < 0)
		dprintf(1, "probe: unable to hibernate: %s\n", strerror(-r));
	else
		dprintf(1, "probe: resumed, marker %s\n", marker);
}

/* What a non-systemd init needs to find at the top of the new root, and the file the test
 * /usr's factory /var holds. */
static const char *const skeleton_paths[] = {
	"/bin", "/sbin", "/lib", "/lib64", "/etc", "/var", "/run", "/tmp", "/var/tmp", "/var/run",
	"/root", "/home", "/srv", "/var/lib/probe-factory",
};

static const char *const write_dirs[] = { "/", "/etc", "/var" };
#define WRITE_MARKER "probe-written"

/* "skel: /bin -> usr/bin", "skel: /tmp dir 1777", "skel: /lib64 missing". */
static void emit_skeleton(void)
{
	for (size_t i = 0; i < sizeof(skeleton_paths) / sizeof(skeleton_paths[0]); i++) {
		const char *path = skeleton_paths[i];
		char link[256];
		struct stat st;
		ssize_t n;

		if (lstat(path, &st) < 0) {
			emit("skel: %s missing\n", path);
		} else if (S_ISLNK(st.st_mode) && (n = readlink(path, link, sizeof(link) - 1)) >= 0) {
			link[n] = '\0';
			emit("skel: %s -> %s\n", path, link);
		} else if (S_ISDIR(st.st_mode)) {
			emit("skel: %s dir %04o\n", path, (unsigned)(st.st_mode & 07777));
		} else if (S_ISREG(st.st_mode)) {
			emit("skel: %s file\n", path);
		} else {
			emit("skel: %s other\n", path);
		}
	}
}

static void marker_path(char *buf, size_t size, const char *dir)
{
	snprintf(buf, size, "%s%s" WRITE_MARKER, dir, dir[1] ? "/" : "");
}

/* "previous: none" or the markers an earlier boot left; then "written: / /etc /var" and a
 * "write-failed:" line for each directory that refused. */
static void write_markers(const char *cmdline)
{
	char path[64];
	size_t seen = 0;

	emit("previous:");
	for (size_t i = 0; i < sizeof(write_dirs) / sizeof(write_dirs[0]); i++) {
		marker_path(path, sizeof(path), write_dirs[i]);
		if (access(path, F_OK) == 0) {
			emit(" %s", path);
			seen++;
		}
	}
	emit("%s\n", seen ? "" : " none");
	emit("written:");
	for (size_t i = 0; i < sizeof(write_dirs) / sizeof(write_dirs[0]); i++) {
		int fd;

		marker_path(path, sizeof(path), write_dirs[i]);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0)
			continue;
		write_all(fd, cmdline, strlen(cmdline));
		close(fd);
		emit(" %s", write_dirs[i]);
	}
	emit("\n");
	for (size_t i = 0; i < sizeof(write_dirs) / sizeof(write_dirs[0]); i++) {
		marker_path(path, sizeof(path), write_dirs[i]);
		if (access(path, F_OK) < 0)
			emit("write-failed: %s\n", write_dirs[i]);
	}
}

static bool cmdline_has(const char *cmdline, const char *word)
{
	size_t n = strlen(word);

	for (const char *s = cmdline; (s = strstr(s, word)); s += n)
		if ((s == cmdline || s[-1] == ' ') && (s[n] == ' ' || s[n] == '\n' || s[n] == '\0'))
			return true;
	return false;
}

/* Emits each line of path prefixed by two spaces, or "  (none)". */
static void emit_lines(const char *path, char *buf, size_t size)
{
	char *line, *save = NULL;
	int r = read_file(path, buf, size);

	if (r < 0 || buf[0] == '\0') {
		emit("  (none)\n");
		return;
	}
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		emit("  %s\n", line);
}

/* "swaps:" and each active swap device of /proc/swaps, without its header line, as
 * "  FILENAME TYPE": "  /dev/vda2 partition", or "  (none)". */
static void emit_swaps(char *buf, size_t size)
{
	char *line, *save = NULL;
	bool any = false;

	emit("swaps:\n");
	if (read_file("/proc/swaps", buf, size) == 0) {
		line = strtok_r(buf, "\n", &save); /* "Filename Type Size Used Priority" */
		while ((line = strtok_r(NULL, "\n", &save))) {
			char name[256], type[32];

			if (sscanf(line, "%255s %31s", name, type) != 2)
				continue;
			emit("  %s %s\n", name, type);
			any = true;
		}
	}
	if (!any)
		emit("  (none)\n");
}

/* "sizes:" and, for each mount of a block device in /proc/self/mountinfo, "  MOUNTPOINT MiB":
 * the filesystem's size as the kernel reports it (statfs), for first-boot growth. */
static void emit_sizes(char *buf, size_t size)
{
	char *line, *save = NULL;

	emit("sizes:\n");
	if (read_file("/proc/self/mountinfo", buf, size) < 0)
		return;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char where[256], source[256];
		const char *dash = strstr(line, " - ");
		struct statfs st;

		if (!dash || sscanf(line, "%*s %*s %*s %*s %255s", where) != 1 ||
		    sscanf(dash + 3, "%*s %255s", source) != 1 || strncmp(source, "/dev/", 5) != 0 ||
		    statfs(where, &st) < 0)
			continue;
		emit("  %s %llu\n", where,
		     (unsigned long long)st.f_blocks * (unsigned long long)st.f_bsize / (1024 * 1024));
	}
}

static void emit_first_line(const char *key, const char *path, char *buf, size_t size)
{
	int r = read_file(path, buf, size);

	if (r < 0) {
		emit("%s: (unreadable: %s)\n", key, strerror(-r));
		return;
	}
	buf[strcspn(buf, "\n")] = '\0';
	emit("%s: %s\n", key, buf);
}

/* Processes other than this one and the kernel's threads (children of kthreadd, pid 2):
 * what the initramfs left running for the real init (a module load, say), as "PID (COMM)
 * STATE", a zombie (Z) included: the real init would have to reap it. */
static void emit_inherited(char *buf, size_t size)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	bool any = false;

	emit("inherited:");
	while (d && (e = readdir(d))) {
		char path[64], comm[64] = "?", state = '?';
		int pid = atoi(e->d_name), ppid = -1;
		char *close_paren;

		if (pid <= 2 || pid == (int)getpid())
			continue;
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
		if (read_file(path, buf, size) < 0)
			continue;
		/* "PID (COMM) STATE PPID …", COMM may hold spaces and parentheses */
		close_paren = strrchr(buf, ')');
		if (!close_paren || sscanf(close_paren + 1, " %c %d", &state, &ppid) != 2 || ppid == 2)
			continue;
		*close_paren = '\0';
		if (strchr(buf, '('))
			snprintf(comm, sizeof(comm), "%s", strchr(buf, '(') + 1);
		emit(" %d (%s) %c", pid, comm, state);
		any = true;
	}
	if (d)
		closedir(d);
	emit("%s\n", any ? "" : " none");
}

/* The credentials the initramfs handed over: the environment systemd reads, then each file of
 * /run/credentials/@system and @encrypted as "credential DIR NAME MODE VALUE" (the value's
 * first 64 bytes, others than printable ASCII as '.'), and the stub's TPM2 files in
 * /run/systemd. Nothing when there is none of it. */
static void emit_credentials(char *buf, size_t size)
{
	static const char *const dirs[] = { "@system", "@encrypted" };
	static const char *const stub_files[] = { "/run/systemd/tpm2-pcr-signature.json",
						  "/run/systemd/tpm2-pcr-public-key.pem" };
	const char *sys = getenv("CREDENTIALS_DIRECTORY");
	const char *enc = getenv("ENCRYPTED_CREDENTIALS_DIRECTORY");

	if (sys || enc || access("/run/credentials", F_OK) == 0)
		emit("credentials: CREDENTIALS_DIRECTORY=%s ENCRYPTED_CREDENTIALS_DIRECTORY=%s\n",
		     sys ? sys : "(unset)", enc ? enc : "(unset)");
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		char dir[64];
		DIR *d;
		struct dirent *e;

		snprintf(dir, sizeof(dir), "/run/credentials/%s", dirs[i]);
		d = opendir(dir);
		while (d && (e = readdir(d))) {
			char path[512];
			struct stat st;
			int r;

			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			if (lstat(path, &st) < 0)
				continue;
			r = read_file(path, buf, size);
			buf[r < 0 ? 0 : 64] = '\0';
			for (char *c = buf; *c; c++)
				if (*c < 0x20 || *c > 0x7e)
					*c = '.';
			emit("credential %s %s %04o %s\n", dirs[i], e->d_name, (unsigned)(st.st_mode & 07777),
			     buf);
		}
		if (d)
			closedir(d);
	}
	for (size_t i = 0; i < sizeof(stub_files) / sizeof(stub_files[0]); i++)
		if (access(stub_files[i], F_OK) == 0)
			emit("stub-file %s\n", stub_files[i]);
}

/* PCRs 11 (the phases) and 15 (the volume key) of each bank the kernel shows
 * (/sys/class/tpm/tpm0/pcr-BANK/N, Linux 5.12+) as "pcrN-BANK: HEX", and each line of
 * systemd's measurement log as "measure-log: LINE" (its record separators dropped). Nothing
 * without a TPM. */
static void emit_pcrs(char *buf, size_t size)
{
	static const char *const banks[] = { "sha1", "sha256", "sha384", "sha512" };
	static const int pcrs[] = { 11, 15 };
	char *line, *save = NULL;

	for (size_t p = 0; p < sizeof(pcrs) / sizeof(pcrs[0]); p++)
		for (size_t i = 0; i < sizeof(banks) / sizeof(banks[0]); i++) {
			char path[64];

			snprintf(path, sizeof(path), "/sys/class/tpm/tpm0/pcr-%s/%d", banks[i], pcrs[p]);
			if (read_file(path, buf, size) == 0) {
				buf[strcspn(buf, "\n")] = '\0';
				emit("pcr%d-%s: %s\n", pcrs[p], banks[i], buf);
			}
		}
	if (read_file("/run/log/systemd/tpm2-measure.log", buf, size) < 0)
		return;
	for (line = strtok_r(buf, "\n\x1e", &save); line; line = strtok_r(NULL, "\n\x1e", &save))
		emit("measure-log: %s\n", line);
}

static void report_build(int argc, char **argv)
{
	static char buf[64 * 1024];

	emit("pid: %d\n", (int)getpid());
	emit_inherited(buf, sizeof(buf));
	if (read_file("/proc/uptime", buf, sizeof(buf)) == 0) {
		buf[strcspn(buf, " \n")] = '\0';
		emit("uptime: %s\n", buf);
	} else {
		emit("uptime: (unknown)\n");
	}
	emit_first_line("cmdline", "/proc/cmdline", buf, sizeof(buf));
	if (read_file("/etc/probe-marker", buf, sizeof(buf)) == 0) {
		buf[strcspn(buf, "\n")] = '\0';
		emit("marker: %s\n", buf);
	}
	emit_skeleton();
	if (read_file("/proc/cmdline", buf, sizeof(buf)) == 0 && cmdline_has(buf, "probe.write"))
		write_markers(buf);
	emit("mountinfo:\n");
	emit_lines("/proc/self/mountinfo", buf, sizeof(buf));
	emit_swaps(buf, sizeof(buf));
	emit_sizes(buf, sizeof(buf));
	emit_credentials(buf, sizeof(buf));
	emit_pcrs(buf, sizeof(buf));
	emit("timings:\n");
	emit_lines("/run/earlymount/timings", buf, sizeof(buf));
	/* the A/B fallback's record, when a newer version was passed over */
	if (access("/run/earlymount/fallback", F_OK) == 0) {
		emit("fallback:\n");
		emit_lines("/run/earlymount/fallback", buf, sizeof(buf));
	}
	/* the record of a boot before this one that failed, passed on */
	if (access("/run/earlymount/last-failure", F_OK) == 0) {
		emit("last-failure:\n");
		emit_lines("/run/earlymount/last-failure", buf, sizeof(buf));
	}
	/* its EFI variable, which earlymount deletes at the handoff once it passed it on */
	if (access("/sys/firmware/efi/efivars", F_OK) == 0)
		emit("last-failure-efivar: %s\n", access(LAST_FAILURE_EFIVAR, F_OK) == 0 ? "present" : "absent");
	emit("argv:");
	for (int i = 0; i < argc; i++)
		emit(" %s", argv[i]);
	emit("\n");
	emit(END);
}

int main(int argc, char **argv)
{
	static char cmdline[4096];

	emit(BEGIN);
	console_ensure();
	proc_ensure();
	if (getpid() == 1)
		kernel_console_quiet();
	report_build(argc, argv);
	write_all(1, report, report_len);
	sync();
	/* Run by hand on a host it only reports; as PID 1 it must never return. */
	if (getpid() != 1)
		return 0;
	if (read_file("/proc/cmdline", cmdline, sizeof(cmdline)) == 0 &&
	    cmdline_has(cmdline, "probe.hibernate"))
		hibernate();
	reboot(RB_POWER_OFF);
	dprintf(1, "probe: unable to power off: %s\n", strerror(errno));
	for (;;)
		pause();
}
