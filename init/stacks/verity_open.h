/* Opens a dm-verity device at boot: reads the hash partition's superblock, checks the data
 * partition is large enough and loads the kernel's table. Effect layer. */
#pragma once

#include <stddef.h>

struct verity_request {
	const char *name;      /* the device-mapper name: "root", "usr" */
	const char *data_dev;  /* device nodes */
	const char *hash_dev;
	const char *root_hash; /* hex */
	const char *options;   /* systemd-veritysetup's words, or NULL */
	const char *sig_dev;   /* the signature partition whose signature of root_hash the kernel
				* checks, or NULL */
};

/* 0, or -errno with why saying what failed and what to try. */
int verity_open(const struct verity_request *req, char *why, size_t why_size);
