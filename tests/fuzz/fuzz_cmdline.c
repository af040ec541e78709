/* The kernel command line: anyone at the boot loader can type it, so every byte string must
 * give one of the documented answers, options that point into their own storage, and a
 * terminated message. */
#include "cmdline.h"
#include "fuzz.h"

#define ERR_SIZE 256

static void check_string(const struct options *o, const char *s, const char *name)
{
	size_t off;

	if (!s)
		return;
	FUZZ_CHECK(s >= o->storage && s < o->storage + o->used, "%s points outside storage", name);
	off = (size_t)(s - o->storage);
	FUZZ_CHECK(memchr(s, '\0', o->used - off) != NULL, "%s is not terminated in storage", name);
}

static void check_options(const struct options *o)
{
	FUZZ_CHECK(o->used <= sizeof(o->storage), "used %zu", o->used);
	check_string(o, o->root, "root");
	check_string(o, o->rootfstype, "rootfstype");
	check_string(o, o->rootflags, "rootflags");
	check_string(o, o->usr, "usr");
	check_string(o, o->usrfstype, "usrfstype");
	check_string(o, o->usrflags, "usrflags");
	check_string(o, o->init, "init");
	check_string(o, o->disk, "disk");
	check_string(o, o->modules_load, "modules_load");
	check_string(o, o->modprobe_blacklist, "modprobe_blacklist");
	for (int i = 0; i < 2; i++) {
		const struct verity_spec *v = i ? &o->verity_usr : &o->verity_root;

		check_string(o, v->hash, "verity hash");
		check_string(o, v->data, "verity data");
		check_string(o, v->hash_device, "verity hash device");
		check_string(o, v->options, "verity options");
	}
	FUZZ_CHECK(o->root_kind == ROOT_DISCOVER || o->root_kind == ROOT_DEVICE ||
		   o->root_kind == ROOT_TMPFS || o->root_kind == ROOT_SHARE, "root_kind %d",
		   (int)o->root_kind);
	FUZZ_CHECK((o->root_kind == ROOT_DEVICE || o->root_kind == ROOT_SHARE) == (o->root != NULL),
		   "root_kind %d with root %s", (int)o->root_kind, o->root ? o->root : "NULL");
	FUZZ_CHECK((o->root_kind == ROOT_SHARE) == (o->root_share != SHARE_NONE),
		   "root_kind %d with root_share %d", (int)o->root_kind, (int)o->root_share);
	FUZZ_CHECK(o->usr_share == SHARE_NONE || (o->usr && o->usr[0]), "usr_share %d without a tag",
		   (int)o->usr_share);
	FUZZ_CHECK(o->volatile_mode >= VOLATILE_NO && o->volatile_mode <= VOLATILE_OVERLAY,
		   "volatile_mode %d", (int)o->volatile_mode);
	FUZZ_CHECK(o->rw >= -1 && o->rw <= 1, "rw %d", o->rw);
	FUZZ_CHECK(o->timeout_sec >= -1, "timeout_sec %d", o->timeout_sec);
	FUZZ_CHECK(o->rootdelay_sec >= -1, "rootdelay_sec %d", o->rootdelay_sec);
	FUZZ_CHECK(!o->init || o->init[0] == '/', "init=%s is not absolute", o->init);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static void *a_mem, *b_mem;
	struct options *a = fuzz_reused(&a_mem, sizeof(*a)), *b = fuzz_reused(&b_mem, sizeof(*b));
	/* Exactly ERR_SIZE bytes on the heap: a write past it is an ASan report. */
	char *err = malloc(ERR_SIZE);
	char tiny[1] = { 'x' };
	char *line = malloc(size + 1);
	int r, r2, r3;

	FUZZ_CHECK(err && line, "out of memory");
	memcpy(line, data, size);
	line[size] = '\0';

	r = cmdline_parse(line, a, err, ERR_SIZE);
	FUZZ_CHECK(r == 0 || r == -EINVAL || r == -E2BIG, "cmdline_parse returned %d", r);
	FUZZ_CHECK(memchr(err, '\0', ERR_SIZE) != NULL, "err not terminated");
	FUZZ_CHECK((r == 0) == (err[0] == '\0'), "returned %d with message '%s'", r, err);
	FUZZ_CHECK(r != -E2BIG || strlen(line) >= CMDLINE_MAX, "-E2BIG for %zu bytes", strlen(line));
	check_options(a);

	/* The message buffer never changes the answer. */
	r2 = cmdline_parse(line, b, NULL, 0);
	FUZZ_CHECK(r2 == r, "%d without a message buffer, %d with one", r2, r);
	FUZZ_CHECK(b->used == a->used && memcmp(a->storage, b->storage, a->used) == 0,
		   "storage differs between two parses of one line");
	r3 = cmdline_parse(line, b, tiny, sizeof(tiny));
	FUZZ_CHECK(r3 == r && tiny[0] == '\0', "%d with a 1-byte buffer holding %d", r3, tiny[0]);

	free(line);
	free(err);
	return 0;
}
