/* When the drivers of slow-scanning storage controllers (modalias_scans_slowly()), held back
 * while a pinned plan waits for its root, are inserted after all. Pure. */
#pragma once

#include <stdbool.h>

/* How long the slow controllers wait once the likely controllers' inserts have ended without
 * bringing the root: NVMe names its namespaces from a worker after its insert returned, in
 * tens of milliseconds on real hardware. */
#define STORAGE_HOLD_MS 250

struct storage_hold_facts {
	bool held;             /* drivers of slow controllers are held back */
	bool likely_requested; /* a likely controller's driver (NVMe, virtio…) was inserted */
	bool settled;          /* no insert runs, every disk that was there is probed */
	double since_settled_ms;
};

/* Milliseconds until the held slow controllers' drivers go in: 0 now, -1 not yet timed (none
 * held, or inserts still run). With no likely controller the root can only be behind a
 * slow one: no wait. */
int storage_hold_due_ms(const struct storage_hold_facts *f, int hold_ms);
