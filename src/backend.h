/*
 * The backend interface: one file per platform mechanism, each behind
 * these few operations. A backend is compiled on every platform; the parts
 * that need the platform are fenced inside its file, so the interface and
 * the "unavailable" answer exist everywhere.
 */
#ifndef CORDON_BACKEND_H
#define CORDON_BACKEND_H

#include "internal.h"

struct backend_probe {
	int available;
	const char *reason; /* fixed identifier when unavailable */
	int abi; /* version in use (after any test cap), 0 if none */
	int kernel_abi; /* what the platform reported */
	const char *detail; /* what the probe saw when unavailable, or NULL;
			       static, lives as long as the process */
};

struct backend {
	const char *name; /* fixed identifier */
	/* Decide availability. The expensive part runs at most once per
	 * process; max_abi (tests only, 0 = none) caps the version used.
	 * Never walks the file system; every trial has a timeout. */
	void (*probe)(int max_abi, struct backend_probe *out);
	/* Optional: start the probe's slow part early, so that it overlaps
	 * the parent's own preparation; probe() then only collects it. */
	void (*probe_start)(void);
	/* Layers this backend applies and gaps it leaves, at this version. */
	void (*coverage)(int abi, unsigned *layers, unsigned *gaps);
	/* Parent, before fork: everything that can fail. */
	int (*prepare)(cordon *c, struct prepared *out);
	/* Child, after fork, just before exec: async-signal-safe only.
	 * Returns 0 or an errno value; on failure the child never execs. */
	int (*apply)(const struct prepared *p);
	void (*release)(struct prepared *p);
};

extern const struct backend cordon_backend_landlock;
extern const struct backend cordon_backend_seatbelt;
extern const struct backend cordon_backend_none;

/* The backend cordon uses on this platform. */
const struct backend *backend_for_platform(void);

#endif
