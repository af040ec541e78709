/* Credentials from the command line and from SMBIOS type 11 strings. */
#include <errno.h>
#include <string.h>

#include "base64.h"
#include "cmdline.h"
#include "credentials.h"
#include "util.h"

#define SMBIOS11_TYPE 11
#define SMBIOS_HEADER 5
#define SMBIOS_TEXT "io.systemd.credential:"
#define SMBIOS_BINARY "io.systemd.credential.binary:"

bool credential_name_valid(const char *name, size_t len)
{
	bool ok = len > 0 && len <= CREDENTIAL_NAME_MAX && !(len == 1 && name[0] == '.') &&
		  !(len == 2 && name[0] == '.' && name[1] == '.');

	for (size_t i = 0; i < len && ok; i++)
		ok = name[i] >= 0x20 && name[i] <= 0x7e && name[i] != '/' && name[i] != ':';
	return ok;
}

/* One credential NAME<sep>VALUE of length len (base64 when binary), handed to w->found. */
static int deliver(const char *text, size_t len, char sep, bool binary, const char *source,
		   const struct credential_walk *w)
{
	static uint8_t decoded[CREDENTIAL_SIZE_MAX];
	const char *split = memchr(text, sep, len);
	char name[CREDENTIAL_NAME_MAX + 1];
	size_t name_len = split ? (size_t)(split - text) : 0, value_len = 0;
	const uint8_t *value = NULL;
	int r = 0;

	if (!split) {
		w->bad(source, sep == ':' ? "not NAME:VALUE" : "not NAME=VALUE", w->data);
		goto out;
	}
	if (!credential_name_valid(text, name_len)) {
		w->bad(source, "its name is not a credential name (1 to 255 printable ASCII characters, no '/' or ':')",
		       w->data);
		goto out;
	}
	memcpy(name, text, name_len);
	name[name_len] = '\0';
	value = (const uint8_t *)split + 1;
	value_len = len - name_len - 1;
	if (binary) {
		if (!base64_decode(split + 1, value_len, decoded, sizeof(decoded), &value_len)) {
			w->bad(name, "its value is not base64, or larger than 1 MiB", w->data);
			goto out;
		}
		value = decoded;
	}
	if (value_len > CREDENTIAL_SIZE_MAX) {
		w->bad(name, "larger than 1 MiB", w->data);
		goto out;
	}
	r = w->found(name, value, value_len, w->data);
out:
	return r;
}

struct cmdline_walk {
	const struct credential_walk *w;
	int result;
};

static void cmdline_word(const char *key, const char *value, void *data)
{
	struct cmdline_walk *c = data;
	bool text = streq(key, "systemd.set_credential");
	bool binary = streq(key, "systemd.set_credential_binary");

	if (c->result < 0 || !(text || binary))
		return;
	if (!value)
		c->w->bad(key, "given without a value", c->w->data);
	else
		c->result = deliver(value, strlen(value), ':', binary, key, c->w);
}

int credentials_from_cmdline(const char *line, const struct credential_walk *w)
{
	struct cmdline_walk c = { w, 0 };

	cmdline_walk(line, cmdline_word, &c);
	return c.result;
}

/* The strings follow the 5-byte header back to back, each ending in a NUL, the set in two;
 * the kernel's raw file holds exactly one structure. */
int credentials_from_smbios11(const uint8_t *raw, size_t len, const struct credential_walk *w)
{
	size_t pos = SMBIOS_HEADER;
	int r = 0;

	if (len < SMBIOS_HEADER || raw[0] != SMBIOS11_TYPE || raw[1] != SMBIOS_HEADER)
		return -EBADMSG;
	while (pos < len && r == 0) {
		const char *s = (const char *)raw + pos;
		const char *end = memchr(s, '\0', len - pos);
		size_t n = end ? (size_t)(end - s) : len - pos;

		if (n > strlen(SMBIOS_BINARY) && !strncmp(s, SMBIOS_BINARY, strlen(SMBIOS_BINARY)))
			r = deliver(s + strlen(SMBIOS_BINARY), n - strlen(SMBIOS_BINARY), '=', true,
				    "an SMBIOS type 11 string", w);
		else if (n > strlen(SMBIOS_TEXT) && !strncmp(s, SMBIOS_TEXT, strlen(SMBIOS_TEXT)))
			r = deliver(s + strlen(SMBIOS_TEXT), n - strlen(SMBIOS_TEXT), '=', false,
				    "an SMBIOS type 11 string", w);
		/* an empty string ends the set */
		if (n == 0 && pos > SMBIOS_HEADER)
			break;
		pos += n + 1;
	}
	return r;
}
