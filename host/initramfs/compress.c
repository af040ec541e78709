/* Compression through the host's programs: each runs with in_fd as its standard input and
 * out_fd as its standard output, so nothing passes through a pipe and nothing can deadlock. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "compress.h"
#include "path.h"
#include "fileio.h"
#include "util.h"

extern char **environ;

#define MAX_ARGS 8

static const struct compressor {
	const char *name;
	const char *program;
	const char *package;
	const char *suffix;
	/* after argv[0]; each reads stdin and writes stdout */
	const char *args[MAX_ARGS];
	/* given the input's size when it is known, so that it lands in the header */
	const char *size_option;
} compressors[COMPRESS_MAX] = {
	[COMPRESS_NONE] = { "none", NULL, NULL, "", { NULL }, NULL },
	[COMPRESS_GZIP] = { "gzip", "gzip", "gzip", ".gz", { "-c", "-q", "-n", "-9", NULL }, NULL },
	/* --single-thread: the multi-threaded format differs, and a build must not depend on
	 * the machine's cores */
	[COMPRESS_ZSTD] = { "zstd", "zstd", "zstd", ".zst",
			    { "-c", "-q", "-19", "--check", "--single-thread", NULL },
			    "--stream-size=" },
	[COMPRESS_XZ] = { "xz", "xz", "xz-utils", ".xz",
			  { "-c", "-q", "-6", "--check=crc32", "--threads=1", NULL }, NULL },
};

/* Variables the programs read options from: XZ_OPT=--format=lzma or -9e would change the
 * format or the bytes behind the builder's back, so the programs never see them. */
static const char *const option_variables[] = {
	"GZIP=", "XZ_OPT=", "XZ_DEFAULTS=", "ZSTD_CLEVEL=", "ZSTD_NBTHREADS=",
};

static const struct compressor *compressor_of(enum compression c)
{
	return c >= 0 && c < COMPRESS_MAX ? &compressors[c] : NULL;
}

const char *compress_name(enum compression c)
{
	const struct compressor *z = compressor_of(c);

	return z ? z->name : "unknown";
}

int compress_from_name(const char *name)
{
	if (streq(name, "gz"))
		return COMPRESS_GZIP;
	for (int c = 0; c < COMPRESS_MAX; c++)
		if (streq(name, compressors[c].name))
			return c;
	return -EINVAL;
}

const char *compress_program(enum compression c)
{
	const struct compressor *z = compressor_of(c);

	return z ? z->program : NULL;
}

const char *compress_package(enum compression c)
{
	const struct compressor *z = compressor_of(c);

	return z ? z->package : NULL;
}

const char *compress_suffix(enum compression c)
{
	const struct compressor *z = compressor_of(c);

	return z ? z->suffix : "";
}

int compress_find_program(enum compression c, char *path, size_t size)
{
	const struct compressor *z = compressor_of(c);
	int r = -EINVAL;

	if (!z || size == 0)
		goto out;
	path[0] = '\0';
	r = 0;
	if (!z->program)
		goto out;
	r = path_find_program(z->program, NULL, path, size);
	if (r < 0)
		path[0] = '\0';
out:
	return r;
}

/* The remaining size of a regular in_fd, into buf as the program's size option, or "". */
static void format_size_option(const struct compressor *z, int in_fd, char *buf, size_t size)
{
	struct stat st;
	off_t at = lseek(in_fd, 0, SEEK_CUR);

	buf[0] = '\0';
	if (z->size_option && at >= 0 && fstat(in_fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_size >= at)
		snprintf(buf, size, "%s%" PRIu64, z->size_option, (uint64_t)(st.st_size - at));
}

static bool is_option_variable(const char *entry)
{
	bool found = false;

	for (size_t i = 0; i < ARRAY_SIZE(option_variables) && !found; i++)
		found = startswith(entry, option_variables[i]) != NULL;
	return found;
}

/* The environment without option_variables, in a new array of borrowed strings. */
static char **program_environment(void)
{
	size_t n = 0, kept = 0;
	char **env;

	while (environ && environ[n])
		n++;
	env = calloc(n + 1, sizeof(*env));
	for (size_t i = 0; env && i < n; i++)
		if (!is_option_variable(environ[i]))
			env[kept++] = environ[i];
	return env;
}

/* Every decompressor takes the same words: to stdout, quietly. */
static const char *const decompress_args[] = { "-d", "-c", "-q", NULL };

/* Runs program with args (then the size option for a compressor) from in_fd to out_fd. */
static int run_program(const struct compressor *z, const char *program, const char *const *args,
		       int in_fd, int out_fd)
{
	char **env = program_environment();
	posix_spawn_file_actions_t actions;
	const char *argv[MAX_ARGS + 3];
	char size_arg[64] = "";
	size_t argc = 0;
	pid_t pid;
	int status, r;

	if (!env) {
		r = -ENOMEM;
		goto out;
	}
	if (args == z->args)
		format_size_option(z, in_fd, size_arg, sizeof(size_arg));
	argv[argc++] = z->program;
	for (size_t i = 0; args[i]; i++)
		argv[argc++] = args[i];
	if (size_arg[0])
		argv[argc++] = size_arg;
	argv[argc] = NULL;

	r = -posix_spawn_file_actions_init(&actions);
	if (r < 0)
		goto out;
	/* adddup2 clears close-on-exec on the target, so only stdin and stdout are inherited
	 * from these two; in_fd and out_fd are above 2 (see compress_fd) */
	r = -posix_spawn_file_actions_adddup2(&actions, in_fd, STDIN_FILENO);
	if (r == 0)
		r = -posix_spawn_file_actions_adddup2(&actions, out_fd, STDOUT_FILENO);
	if (r == 0)
		r = -posix_spawn(&pid, program, &actions, NULL, (char *const *)argv, env);
	posix_spawn_file_actions_destroy(&actions);
	if (r < 0)
		goto out;
	r = child_wait(pid, &status);
	/* gzip and xz exit 2 for a warning, such as the zeros that pad an image after its
	 * compressed stream: what they decompressed is whole */
	if (r == 0 && (!WIFEXITED(status) ||
		       (WEXITSTATUS(status) != 0 && (args != decompress_args || WEXITSTATUS(status) != 2))))
		r = -EIO;
out:
	free(env);
	return r;
}

static int filter_fd(enum compression c, bool decompress, int in_fd, int out_fd)
{
	const struct compressor *z = compressor_of(c);
	char program[PATH_MAX];
	/* copies above stdin, stdout and stderr, so that moving them to 0 and 1 in the child
	 * cannot overwrite one with the other */
	int in = -1, out = -1;
	int r = -EINVAL;

	if (!z)
		goto out;
	if (!z->program) {
		r = copy_fd(in_fd, out_fd);
		goto out;
	}
	r = compress_find_program(c, program, sizeof(program));
	if (r < 0)
		goto out;
	in = fcntl(in_fd, F_DUPFD_CLOEXEC, 3);
	out = fcntl(out_fd, F_DUPFD_CLOEXEC, 3);
	if (in < 0 || out < 0) {
		r = -errno;
		goto out;
	}
	r = run_program(z, program, decompress ? decompress_args : z->args, in, out);
out:
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return r;
}

int compress_fd(enum compression c, int in_fd, int out_fd)
{
	return filter_fd(c, false, in_fd, out_fd);
}

int decompress_fd(enum compression c, int in_fd, int out_fd)
{
	return filter_fd(c, true, in_fd, out_fd);
}

/* The first bytes of each format (gzip: RFC 1952; zstd: RFC 8878's frame magic; xz: its
 * stream header), and of a newc cpio archive, which is not compressed. */
static const struct {
	enum compression c;
	const char *magic;
	size_t size;
} magics[] = {
	{ COMPRESS_NONE, "070701", 6 },
	{ COMPRESS_NONE, "070702", 6 },
	{ COMPRESS_GZIP, "\x1f\x8b", 2 },
	{ COMPRESS_ZSTD, "\x28\xb5\x2f\xfd", 4 },
	{ COMPRESS_XZ, "\xfd" "7zXZ\0", 6 },
};

int compress_detect(const void *buf, size_t size)
{
	int r = -EMEDIUMTYPE;

	for (size_t i = 0; i < ARRAY_SIZE(magics) && r < 0; i++)
		if (size >= magics[i].size && memcmp(buf, magics[i].magic, magics[i].size) == 0)
			r = (int)magics[i].c;
	return r;
}
