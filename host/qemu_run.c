/* One VM of `earlymount qemu`: QEMU (and virtiofsd for a virtiofs root) started, the serial
 * console copied to stdout and read on the way, and the guest's end told apart. QEMU exits
 * 0 whether the guest powered off or (under -no-reboot) rebooted, so the console decides:
 * the kernel's "reboot: Power down" is a clean end, earlymount's stop lines or a panic are a
 * failed boot, and anything else (a reboot, QEMU gone without a power-off) is one too. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/kvm.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child.h"
#include "commands.h"
#include "fileio.h"
#include "log.h"
#include "qemu_run.h"
#include "util.h"

#define LINE_MAX_SEEN 1024
/* A KVM guest's firmware or kernel writes to the serial console well within this; a KVM that
 * makes VMs but runs none leaves it silent (QEMU spinning, or gone with an error). */
#define KVM_FIRST_BYTE_SEC 5

/* The machines the harness boots (qemu/boot): aarch64 not on -cpu max under TCG, whose
 * pointer-authentication emulation is slower (docs/qemu.md). */
static const struct qemu_machine {
	enum arch arch;
	const char *binary;
	const char *machine;
	const char *cpu_tcg;
	const char *console;
	const char *firmware_code, *firmware_vars; /* Debian's ovmf and qemu-efi-aarch64 */
} machines[] = {
	{ ARCH_X86_64, "qemu-system-x86_64", "q35", "max", "ttyS0",
	  "/usr/share/OVMF/OVMF_CODE_4M.fd", "/usr/share/OVMF/OVMF_VARS_4M.fd" },
	{ ARCH_AARCH64, "qemu-system-aarch64", "virt", "cortex-a57", "ttyAMA0",
	  "/usr/share/AAVMF/AAVMF_CODE.fd", "/usr/share/AAVMF/AAVMF_VARS.fd" },
};

static const struct console_mark {
	const char *text;
	enum qemu_end verdict;
} console_marks[] = {
	{ "reboot: Power down", QEMU_END_POWEROFF },
	{ "Kernel panic - not syncing", QEMU_END_FAILED },
	{ "reboot: Restarting system", QEMU_END_FAILED },
	/* emergency_fail(): without a shell PID 1 waits forever, with one a person is needed */
	{ "earlymount: no /bin/sh in the initramfs; waiting forever", QEMU_END_FAILED },
	{ "earlymount: the boot stopped; starting", QEMU_END_FAILED },
};

static const struct qemu_machine *machine_for(enum arch arch)
{
	for (size_t i = 0; i < ARRAY_SIZE(machines); i++)
		if (machines[i].arch == arch)
			return &machines[i];
	return NULL;
}

const char *qemu_console_device(enum arch arch)
{
	const struct qemu_machine *m = machine_for(arch);

	return m ? m->console : NULL;
}

bool qemu_kvm_usable(enum arch arch)
{
	int fd, vm = -1;

	if (arch != arch_native())
		return false;
	fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (fd >= 0)
		vm = ioctl(fd, KVM_CREATE_VM, 0);
	if (vm >= 0)
		close(vm);
	if (fd >= 0)
		close(fd);
	return vm >= 0;
}

struct argv_list {
	const char *v[QEMU_ARGS_MAX + 1];
	size_t n;
	char text[8][PATH_MAX + 128]; /* the arguments made here */
	size_t n_text;
};

static void arg(struct argv_list *a, const char *s)
{
	if (a->n < QEMU_ARGS_MAX)
		a->v[a->n++] = s;
	a->v[a->n] = NULL;
}

static const char *arg_text(struct argv_list *a, const char *fmt, const char *s1, const char *s2)
{
	char *t = a->text[a->n_text < ARRAY_SIZE(a->text) - 1 ? a->n_text++ : a->n_text];

	snprintf(t, sizeof(a->text[0]), fmt, s1, s2 ? s2 : "");
	arg(a, t);
	return t;
}

static void print_command(const char *const *argv)
{
	fputs("+", stderr);
	for (size_t i = 0; argv[i]; i++)
		fprintf(stderr, strpbrk(argv[i], " ,;'\"") ? " '%s'" : " %s", argv[i]);
	fputs("\n", stderr);
}

/* argv with its stdout on out_fd (-1: ours), its stderr on err_fd likewise. */
static pid_t spawn(const char *const *argv, int out_fd, int err_fd, bool verbose)
{
	pid_t pid;
	int r;

	if (verbose)
		print_command(argv);
	r = child_start(&(struct child_spec){ .argv = argv, .in = -1, .out = out_fd, .err = err_fd,
					     .exec_failed = 127 },
			&pid);
	if (r < 0) {
		errno = -r;
		pid = -1;
	}
	return pid;
}

/* virtiofsd serving dir on sock; its pid, or -1 when it did not come up within 5 s. */
static pid_t start_virtiofsd(const struct qemu_vm *vm, const char *sock)
{
	char source[PATH_MAX + 16];
	char real[PATH_MAX];
	/* Its namespace sandbox pivots into the shared directory, which fails for the host's /
	 * ("Device or resource busy"): there it takes the chroot sandbox. */
	bool whole_host = realpath(vm->share_dir, real) && streq(real, "/");
	const char *argv[] = { VIRTIOFSD_PATH, NULL, "-o", source, "-o", "cache=auto",
			       whole_host ? "-o" : NULL, "sandbox=chroot", NULL };
	char sock_arg[PATH_MAX + 32];
	/* its log of every vhost-user event is noise unless asked for */
	int quiet = vm->verbose ? -1 : open("/dev/null", O_WRONLY | O_CLOEXEC);
	struct stat st;
	pid_t pid;

	snprintf(sock_arg, sizeof(sock_arg), "--socket-path=%s", sock);
	snprintf(source, sizeof(source), "source=%s", vm->share_dir);
	argv[1] = sock_arg;
	pid = spawn(argv, -1, quiet, vm->verbose);
	if (quiet >= 0)
		close(quiet);
	for (int i = 0; pid > 0 && i < 50; i++) {
		if (stat(sock, &st) == 0 && S_ISSOCK(st.st_mode))
			return pid;
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return -1;
		usleep(100 * 1000);
	}
	if (pid > 0) {
		kill(pid, SIGTERM);
		(void)child_wait(pid, NULL);
	}
	return -1;
}

static void add_share_args(struct argv_list *a, const struct qemu_vm *vm, const char *sock)
{
	char mem[64];

	if (streq(vm->share_kind, "9p")) {
		arg(a, "-fsdev");
		/* multidevs=remap: a tree over several filesystems (the host's /) keeps inode
		 * numbers apart */
		arg_text(a, "local,id=root,path=%s,security_model=none,multidevs=remap%s", vm->share_dir,
			 NULL);
		arg(a, "-device");
		arg_text(a, "virtio-9p-pci,fsdev=root,mount_tag=%s%s", vm->share_tag, NULL);
		return;
	}
	/* vhost-user-fs maps the guest's memory: a shared memfd as the only NUMA node */
	snprintf(mem, sizeof(mem), "%u", vm->memory_mib);
	arg(a, "-object");
	arg_text(a, "memory-backend-memfd,id=mem,size=%sM,share=on%s", mem, NULL);
	arg(a, "-numa");
	arg(a, "node,memdev=mem");
	arg(a, "-chardev");
	arg_text(a, "socket,id=vfs,path=%s%s", sock, NULL);
	arg(a, "-device");
	arg_text(a, "vhost-user-fs-pci,chardev=vfs,tag=%s%s", vm->share_tag, NULL);
}

/* 0, or -1 with errno. */
static int copy_file(const char *from, const char *to)
{
	int in = open(from, O_RDONLY | O_CLOEXEC);
	int out = in < 0 ? -1 : open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	int r = out < 0 ? -errno : copy_fd(in, out);

	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	errno = -r;
	return r < 0 ? -1 : 0;
}

/* The firmware loads the image QEMU gives as -kernel (through fw_cfg) as a UEFI program:
 * the stub then runs as it would from a disk. Its variables are a copy: the firmware
 * writes them. */
static void add_uki_args(struct argv_list *a, const struct qemu_vm *vm, const struct qemu_machine *m,
			 const char *vars)
{
	arg(a, "-drive");
	arg_text(a, "if=pflash,format=raw,unit=0,readonly=on,file=%s%s", m->firmware_code, NULL);
	arg(a, "-drive");
	arg_text(a, "if=pflash,format=raw,unit=1,file=%s%s", vars, NULL);
	/* without it AAVMF waits 5 s for a key */
	arg(a, "-boot");
	arg(a, "menu=on,splash-time=0");
	arg(a, "-kernel");
	arg(a, vm->uki);
	if (vm->append && vm->append[0]) {
		arg(a, "-append");
		arg(a, vm->append);
	}
}

static void build_argv(struct argv_list *a, const struct qemu_vm *vm, const struct qemu_machine *m,
		       const char *sock, const char *vars, char *memory, size_t memory_size)
{
	snprintf(memory, memory_size, "%u", vm->memory_mib);
	arg(a, m->binary);
	arg(a, "-M");
	arg(a, m->machine);
	arg(a, "-accel");
	arg(a, vm->kvm ? "kvm" : "tcg");
	arg(a, "-cpu");
	arg(a, vm->kvm ? "host" : m->cpu_tcg);
	arg(a, "-smp");
	arg(a, "1");
	arg(a, "-m");
	arg(a, memory);
	arg(a, "-nodefaults");
	arg(a, "-no-user-config");
	arg(a, "-display");
	arg(a, "none");
	arg(a, "-monitor");
	arg(a, "none");
	arg(a, "-no-reboot");
	arg(a, "-serial");
	arg(a, "stdio");
	if (vm->uki) {
		add_uki_args(a, vm, m, vars);
	} else {
		arg(a, "-kernel");
		arg(a, vm->kernel);
		arg(a, "-initrd");
		arg(a, vm->initrd);
		arg(a, "-append");
		arg(a, vm->append);
	}
	if (vm->image) {
		/* snapshot=on: the image is never written */
		arg(a, "-drive");
		arg_text(a, "file=%s,if=none,id=d0,format=raw,snapshot=on%s", vm->image, NULL);
		arg(a, "-device");
		arg(a, "virtio-blk-pci,drive=d0");
	}
	if (vm->share_dir)
		add_share_args(a, vm, sock);
}

/* Scans the console's text for the marks, line by line across reads. */
struct console_watch {
	char line[LINE_MAX_SEEN];
	size_t len;
	enum qemu_end verdict;
	size_t bytes; /* of console output */
};

enum qemu_end qemu_console_line(const char *line)
{
	for (size_t i = 0; i < ARRAY_SIZE(console_marks); i++)
		if (strstr(line, console_marks[i].text))
			return console_marks[i].verdict;
	return QEMU_END_UNKNOWN;
}

/* A failure seen stays: a power-off after it (a reboot policy's) is no clean end. */
static void watch_line(struct console_watch *w)
{
	enum qemu_end seen;

	w->line[w->len] = '\0';
	seen = qemu_console_line(w->line);
	if (seen != QEMU_END_UNKNOWN && w->verdict != QEMU_END_FAILED)
		w->verdict = seen;
	w->len = 0;
}

static void watch_bytes(struct console_watch *w, const char *buf, size_t n)
{
	w->bytes += n;
	for (size_t i = 0; i < n; i++) {
		if (buf[i] == '\n' || w->len == sizeof(w->line) - 1)
			watch_line(w);
		if (buf[i] != '\n' && buf[i] != '\r')
			w->line[w->len++] = buf[i];
	}
}

static double now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The earliest of the time limit and, while the console is silent and a KVM that runs no
 * guest can still give way to TCG, the first byte's deadline; 0 for none. */
static double next_deadline(const struct qemu_vm *vm, const struct console_watch *w,
			    double end, double first_byte)
{
	double d = end;

	if (vm->kvm && vm->kvm_fallback && w->bytes == 0 && (d == 0 || first_byte < d))
		d = first_byte;
	return d;
}

/* Copies the console until QEMU closes it, a failure shows, or the time is up: -ETIMEDOUT,
 * or -ETIME when a KVM guest said nothing within KVM_FIRST_BYTE_SEC (see kvm_fallback). */
static int follow_console(const struct qemu_vm *vm, int fd, struct console_watch *w)
{
	double start = now_sec();
	double end = vm->timeout_sec > 0 ? start + vm->timeout_sec : 0;
	char buf[4096];
	int r = 0;

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		double deadline = next_deadline(vm, w, end, start + KVM_FIRST_BYTE_SEC);
		int wait_ms = deadline > 0 ? (int)((deadline - now_sec()) * 1000) : -1;
		ssize_t n;

		if (deadline > 0 && wait_ms <= 0) {
			r = deadline == end ? -ETIMEDOUT : -ETIME;
			break;
		}
		if (poll(&p, 1, wait_ms) < 0 && errno != EINTR)
			break;
		if (!(p.revents & (POLLIN | POLLHUP)))
			continue;
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		(void)write_all(STDOUT_FILENO, buf, (size_t)n);
		watch_bytes(w, buf, (size_t)n);
		if (w->verdict == QEMU_END_FAILED)
			break;
	}
	return r;
}

static void stop(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGTERM);
	(void)child_wait(pid, NULL);
}

int qemu_run(const struct qemu_vm *vm)
{
	const struct qemu_machine *m = machine_for(vm->arch);
	struct console_watch watch = { .verdict = QEMU_END_UNKNOWN };
	static struct argv_list a;
	char sockdir[] = "/tmp/earlymount-qemu.XXXXXX";
	char sock[sizeof(sockdir) + 16] = "", vars[sizeof(sockdir) + 16] = "";
	bool made_dir = false;
	char memory[16];
	pid_t qemu = -1, virtiofsd = -1;
	int pipe_fd[2] = { -1, -1 };
	int status = 0, r = EXIT_SYSTEM;
	bool retry_tcg = false;

	if (!m) {
		log_err("no QEMU machine for %s kernels (x86-64 and arm64 are known)", arch_name(vm->arch));
		goto out;
	}
	if ((vm->share_dir && streq(vm->share_kind, "virtiofs")) || vm->uki) {
		made_dir = mkdtemp(sockdir) != NULL;
		if (!made_dir) {
			log_err("unable to make a temporary directory: %s", strerror(errno));
			goto out;
		}
	}
	if (vm->uki) {
		snprintf(vars, sizeof(vars), "%s/vars.fd", sockdir);
		if (copy_file(m->firmware_vars, vars) < 0) {
			log_err("unable to copy the firmware's variables %s: %s (package %s)",
				m->firmware_vars, strerror(errno),
				vm->arch == ARCH_AARCH64 ? "qemu-efi-aarch64" : "ovmf");
			goto out;
		}
	}
	if (vm->share_dir && streq(vm->share_kind, "virtiofs")) {
		snprintf(sock, sizeof(sock), "%s/root.sock", sockdir);
		virtiofsd = start_virtiofsd(vm, sock);
		if (virtiofsd < 0) {
			log_err("unable to start %s for %s (it needs root; package qemu-system-common), "
				"or use --share 9p", VIRTIOFSD_PATH, vm->share_dir);
			goto out;
		}
	}
	/* Ctrl-C ends QEMU and virtiofsd (they get it too); this process stays to clean up and
	 * to say how the guest ended */
	signal(SIGINT, SIG_IGN);
	memset(&a, 0, sizeof(a));
	build_argv(&a, vm, m, sock, vars, memory, sizeof(memory));
	if (pipe2(pipe_fd, O_CLOEXEC) < 0) {
		log_err("unable to make a pipe: %s", strerror(errno));
		goto out;
	}
	qemu = spawn(a.v, pipe_fd[1], -1, vm->verbose);
	close(pipe_fd[1]);
	if (qemu < 0) {
		log_err("unable to start %s: %s", m->binary, strerror(errno));
		goto out;
	}
	r = follow_console(vm, pipe_fd[0], &watch);
	if (vm->kvm && vm->kvm_fallback && watch.bytes == 0 && (r == -ETIME || r == 0)) {
		stop(qemu);
		retry_tcg = true;
		if (r == -ETIME)
			log_warn("KVM ran no guest here (no console output within %d s): starting "
				 "again with TCG", KVM_FIRST_BYTE_SEC);
		else
			log_warn("KVM ran no guest here (QEMU ended before any console output): "
				 "starting again with TCG");
		goto out;
	}
	if (r == -ETIMEDOUT || watch.verdict == QEMU_END_FAILED) {
		kill(qemu, SIGTERM);
		(void)child_wait(qemu, &status);
		log_err(r == -ETIMEDOUT ? "no end of the guest within %d s: QEMU stopped"
					: "the boot failed (see the console above): QEMU stopped",
			vm->timeout_sec);
		r = r == -ETIMEDOUT ? QEMU_EXIT_TIMEOUT : QEMU_EXIT_FAILED;
		goto out;
	}
	(void)child_wait(qemu, &status);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		r = EXIT_SYSTEM;
	} else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		log_err("QEMU failed (%s %d)", WIFEXITED(status) ? "exit status" : "signal",
			WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		r = EXIT_SYSTEM;
	} else if (watch.verdict == QEMU_END_POWEROFF) {
		r = QEMU_EXIT_POWEROFF;
	} else {
		log_err("the guest ended without powering off (a reboot, or its init died)");
		r = QEMU_EXIT_FAILED;
	}
out:
	if (pipe_fd[0] >= 0)
		close(pipe_fd[0]);
	stop(virtiofsd);
	if (sock[0])
		unlink(sock);
	if (vars[0])
		unlink(vars);
	if (made_dir)
		rmdir(sockdir);
	if (retry_tcg) {
		struct qemu_vm tcg = *vm;

		tcg.kvm = false;
		tcg.kvm_fallback = false;
		r = qemu_run(&tcg);
	}
	return r;
}
