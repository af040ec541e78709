/* The TPM as earlymount-luks speaks to it: a command built in tpm->w, sent, its response read
 * from tpm->r, and a refusal turned into -errno with the reason in tpm->why. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tpm2_command.h"
#include "tpm2_marshal.h"
#include "tpm2_session.h"
#include "tpm2_token.h"

#define TPM_CC_CREATE_PRIMARY 0x00000131
#define TPM_CC_LOAD 0x00000157
#define TPM_CC_UNSEAL 0x0000015e
#define TPM_CC_FLUSH_CONTEXT 0x00000165
#define TPM_CC_START_AUTH_SESSION 0x00000176
#define TPM_CC_POLICY_PCR 0x0000017f
#define TPM_CC_POLICY_GET_DIGEST 0x00000189
#define TPM_CC_POLICY_PASSWORD 0x0000018c
#define TPM_CC_POLICY_AUTH_VALUE 0x0000016b

#define TPM_RH_OWNER 0x40000001
#define TPM_RH_NULL 0x40000007
#define TPM_SE_POLICY 0x01
#define TPM_ALG_AES 0x0006
#define TPM_ALG_NULL 0x0010
#define TPM_ALG_CFB 0x0043
#define TPM_ECC_NIST_P256 0x0003

struct tpm {
	int fd;
	/* the parent's public point, for a salted session; its sizes 0 for an RSA parent */
	uint8_t parent_x[TPM2_ECC_COORD], parent_y[TPM2_ECC_COORD];
	size_t parent_x_len, parent_y_len;
	/* the sealed object's name, for the Unseal's HMAC */
	uint8_t item_name[2 + TPM2_POLICY_MAX];
	size_t item_name_len;
	bool salted;
	struct tpm2_session session;
	struct tpm2_writer w;
	struct tpm2_reader r;
	uint8_t cmd[TPM2_COMMAND_MAX];
	uint8_t resp[TPM2_COMMAND_MAX];
	char *why;
	size_t why_size;
};

/* Sends the command in tpm->w: 0 with tpm->r past the response's header; else -errno, with
 * why naming the command: -EACCES a refused authorization (a wrong PIN), -ENOLCK lockout,
 * -EKEYREJECTED a policy not met, -EIO another refusal, -EPROTO an answer not understood. */
int tpm2_run(struct tpm *tpm, const char *command);
/* rc: a TPM response code (positive) or -errno: the -errno, with why set. */
int tpm2_refused(struct tpm *tpm, const char *command, int rc);
unsigned tpm2_rc_base(unsigned rc);
void tpm2_begin(struct tpm *tpm, uint16_t tag, uint32_t code);
/* Flushes a transient object or session; its failure is not reported. */
void tpm2_flush(struct tpm *tpm, uint32_t handle);
/* PolicyPCR with no digest: the TPM takes the PCRs' values now. */
int tpm2_policy_pcr(struct tpm *tpm, uint32_t session, uint16_t bank, uint32_t pcrs);
int tpm2_policy_digest(struct tpm *tpm, uint32_t session, uint8_t *out, size_t *len);
