/* systemd-cryptsetup does not send the volume key, nor a plain hash of it, to the TPM: it
 * extends each bank with HMAC(key = volume key, "cryptsetup:NAME:UUID") in that bank's hash.
 * The helper computes those (nettle) and prints them; PID 1 extends and records them, as it
 * does its other measurements. */
#include <errno.h>
#include <libcryptsetup.h>
#include <nettle/hmac.h>
#include <nettle/nettle-meta.h>
#include <nettle/sha1.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "luks_helper.h"
#include "volume_key.h"

#define VOLUME_KEY_MAX 512

void measured_string(const char *name, const char *uuid, char *out, size_t size)
{
	size_t used = (size_t)snprintf(out, size, "cryptsetup:");

	for (const unsigned char *c = (const unsigned char *)name; *c && used < size; c++)
		used += (size_t)(*c < ' ' || *c >= 127 || *c == '\\' || *c == ':'
					 ? snprintf(out + used, size - used, "\\x%02x", *c)
					 : snprintf(out + used, size - used, "%c", *c));
	if (used < size)
		snprintf(out + used, size - used, ":%s", uuid ? uuid : "");
}

static void put_hex(const char *bank, const uint8_t *d, size_t n)
{
	printf(" %s:", bank);
	for (size_t i = 0; i < n; i++)
		printf("%02x", d[i]);
}

/* The banks systemd may extend, and their hashes. */
static const struct {
	const char *bank;
	const struct nettle_hash *hash;
} banks[] = {
	{ "sha1", &nettle_sha1 },
	{ "sha256", &nettle_sha256 },
	{ "sha384", &nettle_sha384 },
	{ "sha512", &nettle_sha512 },
};

/* One HMAC per bank; PID 1 takes those of the TPM's active banks. */
static void print_measurement(const uint8_t *key, size_t key_len, const char *msg)
{
	/* nettle's generic HMAC: the outer, inner and running states of the largest hash */
	struct sha512_ctx outer, inner, state;
	uint8_t d[SHA512_DIGEST_SIZE];

	printf(LUKS_MEASURE_PREFIX);
	for (size_t i = 0; i < sizeof(banks) / sizeof(banks[0]); i++) {
		const struct nettle_hash *h = banks[i].hash;

		hmac_set_key(&outer, &inner, &state, h, key_len, key);
		hmac_update(&state, h, strlen(msg), (const uint8_t *)msg);
		hmac_digest(&outer, &inner, &state, h, h->digest_size, d);
		put_hex(banks[i].bank, d, h->digest_size);
	}
	printf(" %s\n", msg);
	fflush(stdout);
	/* the states hold the key's pads */
	explicit_bzero(&outer, sizeof(outer));
	explicit_bzero(&inner, sizeof(inner));
	explicit_bzero(&state, sizeof(state));
}

int activate(struct crypt_device *cd, const struct activation *a, int keyslot,
	     const char *passphrase, size_t len)
{
	static uint8_t vk[VOLUME_KEY_MAX];
	/* "cryptsetup:", a name of up to 127 bytes each as \xNN, ":", the UUID */
	char msg[16 + 4 * 128 + 64];
	size_t vk_len = sizeof(vk);
	int r;

	if (!a->measure || !a->name)
		return crypt_activate_by_passphrase(cd, a->name, keyslot, passphrase, len, a->flags);
	(void)mlock(vk, sizeof(vk));
	r = crypt_volume_key_get(cd, keyslot, (char *)vk, &vk_len, passphrase, len);
	if (r >= 0) {
		int slot = r;

		r = crypt_activate_by_volume_key(cd, a->name, (const char *)vk, vk_len, a->flags);
		if (r >= 0) {
			measured_string(a->name, crypt_get_uuid(cd), msg, sizeof(msg));
			print_measurement(vk, vk_len, msg);
			r = slot;
		}
	}
	explicit_bzero(vk, sizeof(vk));
	return r;
}
