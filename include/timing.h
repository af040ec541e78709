/* How long each boot stage took, on CLOCK_BOOTTIME, for the log and /run/earlymount/timings. */
#pragma once

#include <stddef.h>

#include "paths.h"

/* The stages of boot.c and the entries boot_handoff() adds (15 at most now), with room to grow. */
#define TIMING_MAX_STAGES 24
#define TIMING_NAME_MAX 24
#define TIMINGS_PATH EARLYMOUNT_RUN "/timings"

struct timing_stage {
	char name[TIMING_NAME_MAX];
	double start_sec;   /* CLOCK_BOOTTIME when it began */
	double duration_ms;
};

struct timings {
	struct timing_stage stages[TIMING_MAX_STAGES];
	size_t n;
	double handoff_sec; /* 0 until the handoff */
};

/* Seconds on CLOCK_BOOTTIME: time since the kernel started, suspend included. */
double timing_now(void);
/* Starts a stage; a stage past TIMING_MAX_STAGES is timed but not kept. */
void timing_begin(struct timings *t, const char *name);
/* Ends the stage begun last and logs "stage NAME: N.N ms". */
void timing_end(struct timings *t);
/* Keeps a measure that is not a stage (the probes spread over several stages): start is
 * when the first began, duration their sum. Logs nothing. */
void timing_add(struct timings *t, const char *name, double start_sec, double duration_ms);
/* The file's text: "earlymount VERSION", then "NAME START_SECONDS DURATION_MS" per stage, then
 * "handoff START_SECONDS 0" once handoff_sec is set. Pure. Length written, or -E2BIG. */
int timing_format(const struct timings *t, const char *version, char *buf, size_t size);
/* Marks the handoff now and writes the file at path (its directory made 0755). 0 or -errno. */
int timing_write(struct timings *t, const char *path);
