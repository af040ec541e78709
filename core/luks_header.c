/* LUKS headers: the binary part (magic, version, the header's size) and LUKS2's JSON, read
 * with the strict reader of json.c. What is checked is what libcryptsetup needs to open a
 * volume with a passphrase or key file: keyslots of a known type and key derivation, a
 * digest that ties one to a segment, an encrypted segment, and no mandatory requirement it
 * cannot meet at boot. Tokens are named, not used. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "tpm2_token.h"
#include "luks_header.h"
#include "util.h"

#define MAGIC_LEN 6
#define HDR_SIZE_OFFSET 8
#define TYPE_MAX 24

static const uint8_t magics[2][MAGIC_LEN] = {
	{ 'L', 'U', 'K', 'S', 0xba, 0xbe },
	{ 'S', 'K', 'U', 'L', 0xba, 0xbe },
};

/* Where a second LUKS2 copy may be, by the sizes the format allows (16 KiB to 4 MiB): read
 * when the first copy's binary header is gone. */
static const uint64_t second_offsets[] = {
	0x4000, 0x8000, 0x10000, 0x20000, 0x40000, 0x80000, 0x100000, 0x200000, 0x400000,
};

static uint64_t be64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

static bool valid_hdr_size(uint64_t size)
{
	bool ok = false;

	for (size_t i = 0; i < ARRAY_SIZE(second_offsets) && !ok; i++)
		ok = size == second_offsets[i];
	return ok;
}

int luks_binary_parse(const uint8_t *bytes, size_t len, int copy, struct luks_binary *out,
		      char *why, size_t why_size)
{
	int r = -EINVAL;

	memset(out, 0, sizeof(*out));
	if (len < LUKS_BINARY_HEADER || copy < 1 || copy > 2 ||
	    memcmp(bytes, magics[copy - 1], MAGIC_LEN)) {
		set_why(why, why_size, "no LUKS header (magic)");
		goto out;
	}
	out->version = (unsigned)(bytes[6] << 8 | bytes[7]);
	out->hdr_size = out->version == 2 ? be64(bytes + HDR_SIZE_OFFSET) : LUKS_BINARY_HEADER;
	if (out->version == 1 && copy == 1)
		r = 0;
	else if (out->version == 1)
		set_why(why, why_size, "a second copy of a LUKS1 header, which LUKS1 does not have");
	else if (out->version != 2)
		set_why(why, why_size, "LUKS version %u, not 1 or 2", out->version);
	else if (!valid_hdr_size(out->hdr_size))
		set_why(why, why_size, "a header size of %llu bytes, which LUKS2 does not allow",
			(unsigned long long)out->hdr_size);
	else
		r = 0;
out:
	return r;
}

/* --- the JSON --- */

struct keyslot {
	unsigned id;
	char type[TYPE_MAX], kdf[TYPE_MAX];
	uint64_t priority; /* 0: never tried (cryptsetup's "ignore") */
};

struct meta {
	struct keyslot keyslots[LUKS2_KEYSLOTS_MAX];
	unsigned n_keyslots;
	uint32_t opened;      /* keyslots a digest ties to a segment */
	uint32_t crypt_segments;
	unsigned n_segments;
	bool plain_segment;   /* a segment without dm-integrity */
	bool seen[5];         /* keyslots, tokens, segments, digests, config */
	char requirement[TYPE_MAX];
	char tokens[96];
	unsigned tpm2_tokens;
	bool tpm2_pin;
	char tpm2_error[160];
	/* the object being read */
	uint32_t slots, segments;
	char type[TYPE_MAX];
	char integrity[TYPE_MAX]; /* a segment's integrity type, "" when it has none */
	struct keyslot *slot;
};

/* A keyslot or segment id: "0" to "31". */
static bool id_of(struct json_reader *r, const char *text, unsigned *id)
{
	unsigned v = 0;
	size_t n = 0;

	while (text[n] >= '0' && text[n] <= '9' && n < 3)
		v = v * 10 + (unsigned)(text[n++] - '0');
	*id = v;
	return (n > 0 && !text[n] && v < LUKS2_KEYSLOTS_MAX && (text[0] != '0' || n == 1)) ||
	       json_fail(r, "an id that is not a number from 0 to 31");
}

static bool type_string(struct json_reader *r, char *out)
{
	size_t n;

	return json_string(r, out, TYPE_MAX, &n) && (n < TYPE_MAX || json_fail(r, "a type name too long"));
}

/* An element of "keyslots" or "segments" of a digest or token: an id into the mask. */
static bool id_element(struct json_reader *r, size_t index, void *data)
{
	uint32_t *mask = data;
	char text[8];
	unsigned id;
	bool ok = json_string(r, text, sizeof(text), NULL) && id_of(r, text, &id);

	if (ok)
		*mask |= 1u << id;
	return ok;
}

static bool kdf_field(struct json_reader *r, const char *key, void *data)
{
	struct keyslot *k = data;

	return streq(key, "type") ? type_string(r, k->kdf) : json_skip(r);
}

static bool keyslot_field(struct json_reader *r, const char *key, void *data)
{
	struct keyslot *k = data;

	if (streq(key, "type"))
		return type_string(r, k->type);
	if (streq(key, "kdf"))
		return json_object(r, kdf_field, k);
	if (streq(key, "priority"))
		return json_u64(r, &k->priority);
	return json_skip(r);
}

static bool keyslot(struct json_reader *r, const char *key, void *data)
{
	struct meta *m = data;
	struct keyslot *k = &m->keyslots[m->n_keyslots];
	unsigned id;

	if (!id_of(r, key, &id))
		return false;
	if (m->n_keyslots == LUKS2_KEYSLOTS_MAX)
		return json_fail(r, "more than 32 keyslots");
	*k = (struct keyslot){ .id = id, .priority = 1 };
	m->n_keyslots++;
	return json_object(r, keyslot_field, k);
}

/* The fields of a digest, a segment or a token: its type and the ids it names. */
static bool item_field(struct json_reader *r, const char *key, void *data)
{
	struct meta *m = data;

	if (streq(key, "type"))
		return type_string(r, m->type);
	if (streq(key, "keyslots"))
		return json_array(r, id_element, &m->slots);
	if (streq(key, "segments"))
		return json_array(r, id_element, &m->segments);
	return json_skip(r);
}

static bool read_item(struct json_reader *r, struct meta *m)
{
	m->type[0] = '\0';
	m->slots = m->segments = 0;
	return json_object(r, item_field, m);
}

static bool digest(struct json_reader *r, const char *key, void *data)
{
	struct meta *m = data;
	unsigned id;
	bool ok = id_of(r, key, &id) && read_item(r, m);

	if (ok && m->segments)
		m->opened |= m->slots;
	return ok;
}

static bool integrity_field(struct json_reader *r, const char *key, void *data)
{
	struct meta *m = data;

	json_skip_space(r);
	/* a longer name is cut: only "none" is told apart */
	if (streq(key, "type") && r->pos < r->len && r->s[r->pos] == '"')
		return json_string(r, m->integrity, sizeof(m->integrity), NULL);
	return json_skip(r);
}

/* A segment's fields: an item's, and its dm-integrity, which libcryptsetup's format gives as
 * an object (anything else is skipped, and counts as none). */
static bool segment_field(struct json_reader *r, const char *key, void *data)
{
	if (!streq(key, "integrity"))
		return item_field(r, key, data);
	json_skip_space(r);
	return r->pos < r->len && r->s[r->pos] == '{' ? json_object(r, integrity_field, data)
						       : json_skip(r);
}

static bool segment(struct json_reader *r, const char *key, void *data)
{
	struct meta *m = data;
	unsigned id;
	bool ok;

	m->type[0] = m->integrity[0] = '\0';
	m->slots = m->segments = 0;
	ok = id_of(r, key, &id) && json_object(r, segment_field, m);
	if (ok && streq(m->type, "crypt"))
		m->crypt_segments |= 1u << id;
	/* systemd 260 asks every segment, whatever its type, for integrity */
	m->n_segments += ok;
	m->plain_segment |= ok && (!m->integrity[0] || streq(m->integrity, "none"));
	return ok;
}

/* A systemd-tpm2 token is read whole by the reader the unlock uses (lib/tpm2_token.c): one
 * that cannot be used is said so before the boot. */
static void tpm2_token(struct meta *m, const char *json, size_t len)
{
	static struct tpm2_token t;
	char why[160];

	if (tpm2_token_parse(json, len, &t, why, sizeof(why)) == 0) {
		m->tpm2_tokens++;
		m->tpm2_pin |= t.pin;
	} else if (!m->tpm2_error[0])
		snprintf(m->tpm2_error, sizeof(m->tpm2_error), "%s", why);
}

static bool token(struct json_reader *r, const char *key, void *data)
{
	struct meta *m = data;
	size_t used = strlen(m->tokens), start;
	unsigned id, slot = 0;
	bool ok = id_of(r, key, &id);

	json_skip_space(r);
	start = r->pos;
	ok = ok && read_item(r, m);
	while (ok && slot < LUKS2_KEYSLOTS_MAX && !(m->slots & 1u << slot))
		slot++;
	if (ok && streq(m->type, "systemd-tpm2"))
		tpm2_token(m, r->s + start, r->pos - start);
	else if (ok && used < sizeof(m->tokens) - 1)
		snprintf(m->tokens + used, sizeof(m->tokens) - used, "%s%s (keyslot %u)",
			 used ? ", " : "", m->type[0] ? m->type : "untyped", slot);
	return ok;
}

static bool mandatory(struct json_reader *r, size_t index, void *data)
{
	struct meta *m = data;
	char name[TYPE_MAX];
	bool ok = type_string(r, name);

	if (ok && !m->requirement[0])
		snprintf(m->requirement, sizeof(m->requirement), "%s", name);
	return ok;
}

static bool requirements_field(struct json_reader *r, const char *key, void *data)
{
	return streq(key, "mandatory") ? json_array(r, mandatory, data) : json_skip(r);
}

static bool config_field(struct json_reader *r, const char *key, void *data)
{
	return streq(key, "requirements") ? json_object(r, requirements_field, data) : json_skip(r);
}

static bool top(struct json_reader *r, const char *key, void *data)
{
	static const char *const parts[] = { "keyslots", "tokens", "segments", "digests", "config" };
	static json_member_fn *const readers[] = { keyslot, token, segment, digest, NULL };
	struct meta *m = data;

	for (size_t i = 0; i < ARRAY_SIZE(parts); i++) {
		if (!streq(key, parts[i]))
			continue;
		if (m->seen[i])
			return json_fail(r, "a part of the metadata given twice");
		m->seen[i] = true;
		return json_object(r, readers[i] ? readers[i] : config_field, m);
	}
	return json_skip(r);
}

/* Opened by a passphrase or key file: a LUKS2 keyslot of a key derivation libcryptsetup
 * knows, not set aside, whose volume key a digest ties to a segment. */
static unsigned usable_keyslots(const struct meta *m)
{
	static const char *const kdfs[] = { "pbkdf2", "argon2i", "argon2id" };
	unsigned n = 0;

	for (unsigned i = 0; i < m->n_keyslots; i++) {
		const struct keyslot *k = &m->keyslots[i];
		bool kdf = false;

		for (size_t j = 0; j < ARRAY_SIZE(kdfs) && !kdf; j++)
			kdf = streq(k->kdf, kdfs[j]);
		n += streq(k->type, "luks2") && kdf && k->priority != 0 && (m->opened & 1u << k->id);
	}
	return n;
}

static const char *missing_part(const struct meta *m)
{
	static const char *const names[] = { "keyslots", NULL, "segments", "digests", "config" };
	const char *missing = NULL;

	for (size_t i = 0; i < ARRAY_SIZE(names) && !missing; i++)
		if (names[i] && !m->seen[i])
			missing = names[i];
	return missing;
}

int luks2_json_check(const char *json, size_t len, struct luks2_summary *out, char *why,
		     size_t why_size)
{
	static struct meta m;
	struct json_reader r;
	int ret = -EINVAL;

	memset(&m, 0, sizeof(m));
	memset(out, 0, sizeof(*out));
	json_reader_init(&r, json, len);
	if (!json_object(&r, top, &m) || !json_end(&r)) {
		set_why(why, why_size, "its metadata is not JSON the format allows: %s (at byte %zu)",
			r.error, r.pos);
		goto out;
	}
	out->keyslots = m.n_keyslots;
	out->usable = usable_keyslots(&m);
	snprintf(out->tokens, sizeof(out->tokens), "%s", m.tokens);
	out->tpm2_tokens = m.tpm2_tokens;
	out->tpm2_pin = m.tpm2_pin;
	snprintf(out->tpm2_error, sizeof(out->tpm2_error), "%s", m.tpm2_error);
	out->integrity = m.n_segments > 0 && !m.plain_segment;
	if (missing_part(&m))
		set_why(why, why_size, "its metadata has no \"%s\"", missing_part(&m));
	else if (m.requirement[0])
		set_why(why, why_size, "it requires \"%s\" (an interrupted reencryption?), which the "
			"boot will not do: finish it with cryptsetup", m.requirement);
	else if (!m.crypt_segments)
		set_why(why, why_size, "it has no encrypted segment");
	else if (out->usable == 0)
		set_why(why, why_size, "none of its %u keyslots can be opened with a passphrase or "
			"key file", m.n_keyslots);
	else
		ret = 0;
out:
	return ret;
}

/* --- both copies --- */

/* One copy at offset: its binary header and, for LUKS2, its JSON. */
static int check_copy(luks_read_fn *read_at, void *ctx, uint64_t offset, int copy,
		      struct luks_binary *bin, struct luks2_summary *out, char *why, size_t why_size)
{
	static uint8_t head[LUKS_BINARY_HEADER];
	long n = read_at(ctx, offset, head, sizeof(head));
	char *json = NULL;
	int r = -EIO;

	memset(bin, 0, sizeof(*bin));
	if (n < 0) {
		set_why(why, why_size, "unreadable (a read error)");
		goto out;
	}
	r = luks_binary_parse(head, (size_t)n, copy, bin, why, why_size);
	if (r < 0 || bin->version == 1)
		goto out;
	json = malloc(bin->hdr_size - LUKS_BINARY_HEADER + 1);
	n = json ? read_at(ctx, offset + LUKS_BINARY_HEADER, json, bin->hdr_size - LUKS_BINARY_HEADER)
		 : -ENOMEM;
	if (n < 0) {
		set_why(why, why_size, "its metadata is unreadable (%s)",
			n == -ENOMEM ? "out of memory" : "a read error");
		r = -EIO;
		goto out;
	}
	r = luks2_json_check(json, (size_t)n, out, why, why_size);
out:
	free(json);
	return r;
}

int luks_header_check(luks_read_fn *read_at, void *ctx, struct luks2_summary *out, char *why,
		      size_t why_size)
{
	char first[160], second[160] = "";
	struct luks_binary bin;
	int r = check_copy(read_at, ctx, 0, 1, &bin, out, first, sizeof(first));
	uint64_t at = bin.version == 2 ? bin.hdr_size : 0;

	if (r == 0)
		goto out;
	/* the first copy's size says where the second is; without it, every place it may be */
	for (size_t i = 0; i < ARRAY_SIZE(second_offsets) && r != 0; i++) {
		uint64_t offset = at ? at : second_offsets[i];

		r = check_copy(read_at, ctx, offset, 2, &bin, out, second, sizeof(second));
		/* found (whatever it holds), or the only place it can be */
		if (at || bin.version)
			break;
	}
	if (r != 0)
		set_why(why, why_size, "the first copy: %s; the second: %s", first,
			second[0] ? second : "none found");
out:
	return r == 0 ? 0 : -EINVAL;
}
