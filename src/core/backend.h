/*
 * The backend interface: one file per platform mechanism, each behind
 * these few operations (OpenSSH's sandbox-*.c are the model). A backend
 * is compiled on every platform; what needs the platform is fenced inside
 * its file, so the interface and the "unavailable" answer exist
 * everywhere. Adding a platform is one backend-*.c file and one line in
 * backends.c.
 *
 * A backend keeps its own state private: prepare() reads the policy and
 * the decision and answers with a struct launch, the backend-neutral
 * description of what the spawner must do for each command: a launcher
 * argv to prepend, fds the child needs until its hook has run, and the
 * hook itself. Nothing else of the backend is visible to spawn.c.
 */
#ifndef CORDON_BACKEND_H
#define CORDON_BACKEND_H

#include "internal.h"

/* What the platform's probe found. */
struct backend_probe {
	int available;
	enum reason_id reason; /* when unavailable */
	int abi; /* version in use (after any test cap), 0 if none */
	int kernel_abi; /* what the platform reported */
	const char *detail; /* what the probe saw when unavailable, or NULL;
			       static, lives as long as the process */
};

struct backend {
	enum backend_id id; /* its name is cordon_backend_ids[id] */
	/* Optional, at the top of a run: start what the probe may need
	 * early, so that it overlaps the caller's own preparation. */
	void (*probe_start)(void);
	/* Decide availability from what is known in this process; max_abi
	 * (tests only, 0 = none) caps the version used. Never walks the file
	 * system. A layer nobody has tried yet is assumed to work: the run's
	 * first child applies every layer before it execs, so it is the trial
	 * (coverage() marks such layers "unsure"). */
	void (*probe)(int max_abi, struct backend_probe *out);
	/* Layers applied and gaps left at this version, whether protected
	 * paths are enforced, and which of the layers are still unsure. */
	void (*coverage)(int abi, struct coverage *out);
	/* Optional: make every layer sure by trying them all in a throw-away
	 * child (at most once per process; every trial has a timeout).
	 * cordon probe does, and so does a run whose first child met a
	 * refusal: what it finds is the decision from then on. */
	void (*settle)(void);
	/* Optional: a child of a run applied these layers (a bit set of enum
	 * layer_id) and went on to exec: they work here. */
	void (*confirm)(unsigned layers);
	/* Parent, before any child: everything that can fail. Reads the
	 * policy and the decision and should never change them (known
	 * debt: the Linux read layer records in c->pol.reads_unbuilt that
	 * it could not be built). 0, or a CORDON_E* code with the message
	 * set. */
	int (*prepare)(cordon *c, const struct policy *pol, const struct decision *dec,
		       struct launch *out);
	/* Optional, at the top of a run, when the decision needs no trial
	 * to wait for: start what prepare will need and can make without
	 * the run's policy, so that it overlaps the run's own preparation.
	 * Returns it (prepare takes it from c->early when it fits, and frees
	 * it when not), or NULL. */
	void *(*prestart)(int max_abi, int network_off);
	void (*prestart_free)(void *early);
};

extern const struct backend cordon_backend_landlock;
extern const struct backend cordon_backend_seatbelt;
extern const struct backend cordon_backend_none;

/* The backend cordon uses on this platform (backends.c). */
const struct backend *backend_for_platform(void);

#endif
