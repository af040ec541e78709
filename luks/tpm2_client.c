/* Commands to the TPM and its refusals, for the unseal and the signed PCR policy: one
 * command buffer, one response, and the reason of a failure said once. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tpm2_client.h"
#include "tpm2_device.h"
#include "util.h"

/* Response codes (part 2, 6.6): format-one codes carry the handle, session or parameter
 * they refer to in bits 6 and 8 to 11; these are compared without them. */
#define RC_FMT1 0x080
#define RC_AUTH_FAIL (RC_FMT1 + 0x00e)
#define RC_POLICY_FAIL (RC_FMT1 + 0x019)
#define RC_BAD_AUTH (RC_FMT1 + 0x022)
#define RC_INTEGRITY (RC_FMT1 + 0x01f)
#define RC_LOCKOUT 0x921
#define RC_RETRY 0x922
#define RC_YIELDED 0x908
#define RC_TESTING 0x90a

unsigned tpm2_rc_base(unsigned rc)
{
	return rc & RC_FMT1 ? rc & 0xbf : rc;
}

int tpm2_refused(struct tpm *tpm, const char *command, int rc)
{
	unsigned base = tpm2_rc_base((unsigned)rc);
	int r = -EIO;

	if (rc < 0) {
		set_why(tpm->why, tpm->why_size, "%s: %s", command,
			rc == -EPROTO ? "the TPM's answer could not be read" : strerror(-rc));
		return rc;
	}
	if (base == RC_AUTH_FAIL || base == RC_BAD_AUTH) {
		r = -EACCES;
		set_why(tpm->why, tpm->why_size, "the TPM refused the PIN");
	} else if (base == RC_LOCKOUT) {
		r = -ENOLCK;
		set_why(tpm->why, tpm->why_size, "the TPM is locked out after too many wrong PINs "
			"(it lets one try again after its recovery time)");
	} else if (base == RC_POLICY_FAIL) {
		r = -EKEYREJECTED;
		set_why(tpm->why, tpm->why_size, "the TPM refused %s: its policy is not met", command);
	} else if (base == RC_INTEGRITY && streq(command, "TPM2_Load")) {
		set_why(tpm->why, tpm->why_size, "the key was sealed by another TPM, or under another "
			"owner seed (TPM2_Load: TPM_RC 0x%x)", (unsigned)rc);
	} else
		set_why(tpm->why, tpm->why_size, "the TPM refused %s: TPM_RC 0x%x", command,
			(unsigned)rc);
	return r;
}

/* Sends the command in tpm->w: 0 with tpm->r past the response's header; else -errno, with
 * why naming the command. A TPM busy with a self test or a yield is asked again. */
int tpm2_run(struct tpm *tpm, const char *command)
{
	int len = tpm2_command_end(&tpm->w);
	int r = len;

	for (int tries = 0; len > 0 && tries < 20; tries++) {
		r = tpm2_device_transceive(tpm->fd, tpm->cmd, (size_t)len, tpm->resp,
					   sizeof(tpm->resp));
		if (r >= 0)
			r = tpm2_response_begin(&tpm->r, tpm->resp, (size_t)r);
		if (r != RC_RETRY && r != RC_YIELDED && r != RC_TESTING)
			break;
		usleep(50 * 1000);
	}
	return r == 0 ? 0 : tpm2_refused(tpm, command, r);
}

void tpm2_begin(struct tpm *tpm, uint16_t tag, uint32_t code)
{
	tpm2_writer_init(&tpm->w, tpm->cmd, sizeof(tpm->cmd));
	tpm2_command_begin(&tpm->w, tag, code);
}

/* PolicyPCR with no digest: the TPM takes the PCRs' values now. */
int tpm2_policy_pcr(struct tpm *tpm, uint32_t session, uint16_t bank, uint32_t pcrs)
{
	tpm2_begin(tpm, TPM_ST_NO_SESSIONS, TPM_CC_POLICY_PCR);
	tpm2_put32(&tpm->w, session);
	tpm2_put_2b(&tpm->w, NULL, 0);
	tpm2_put32(&tpm->w, 1); /* TPML_PCR_SELECTION of one bank */
	tpm2_put16(&tpm->w, bank);
	tpm2_put8(&tpm->w, 3);
	tpm2_put8(&tpm->w, (uint8_t)pcrs);
	tpm2_put8(&tpm->w, (uint8_t)(pcrs >> 8));
	tpm2_put8(&tpm->w, (uint8_t)(pcrs >> 16));
	return tpm2_run(tpm, "TPM2_PolicyPCR");
}

int tpm2_policy_digest(struct tpm *tpm, uint32_t session, uint8_t *out, size_t *len)
{
	const uint8_t *d;
	int r;

	tpm2_begin(tpm, TPM_ST_NO_SESSIONS, TPM_CC_POLICY_GET_DIGEST);
	tpm2_put32(&tpm->w, session);
	r = tpm2_run(tpm, "TPM2_PolicyGetDigest");
	if (r == 0) {
		d = tpm2_get_2b(&tpm->r, len);
		if (!d || *len > TPM2_POLICY_MAX)
			r = tpm2_refused(tpm, "TPM2_PolicyGetDigest", -EPROTO);
		else
			memcpy(out, d, *len);
	}
	return r;
}

void tpm2_flush(struct tpm *tpm, uint32_t handle)
{
	size_t why_size = tpm->why_size;

	if (handle == 0)
		return;
	tpm2_begin(tpm, TPM_ST_NO_SESSIONS, TPM_CC_FLUSH_CONTEXT);
	tpm2_put32(&tpm->w, handle);
	/* a failed flush leaves a handle the resource manager drops when the helper exits; the
	 * reason of what failed before stays */
	tpm->why_size = 0;
	(void)tpm2_run(tpm, "TPM2_FlushContext");
	tpm->why_size = why_size;
}

